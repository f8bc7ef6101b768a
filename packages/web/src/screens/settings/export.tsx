import type { Hearth } from '@hearth/client'
import { useState } from 'preact/hooks'
import { errorMessage, today } from '../../format.ts'
import { useWatch } from '../../hooks.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { type CsvTransaction, transactionsCsv } from './transactions-csv.ts'

/**
 * Exports: the household's transactions as a CSV file, read from this device's replica (so it
 * works offline too), optionally between two dates; and where full backups come from.
 */
export function ExportSettings(props: { hearth: Hearth }) {
  const { hearth } = props
  // One row read up front, so a sign-in that may not read transactions says so before a click.
  const probe = useWatch(hearth, 'transactions.list', { limit: 1 })
  const [from, setFrom] = useState('')
  const [to, setTo] = useState('')
  const [busy, setBusy] = useState(false)
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const download = async (event: Event) => {
    event.preventDefault()
    if (busy) return
    if (from && to && from > to)
      return setMessage({ kind: 'error', text: 'The first day is after the last.' })
    setBusy(true)
    setMessage(null)
    try {
      const rows = await readTransactions(hearth, from || undefined, to || undefined)
      const blob = new Blob([transactionsCsv(rows)], { type: 'text/csv;charset=utf-8' })
      const link = document.createElement('a')
      link.href = URL.createObjectURL(blob)
      link.download = `hearth-transactions-${today()}.csv`
      link.click()
      setTimeout(() => URL.revokeObjectURL(link.href), 60_000)
      setMessage({
        kind: 'ok',
        text: `Exported ${rows.length} ${rows.length === 1 ? 'transaction' : 'transactions'}.`,
      })
    } catch (e) {
      setMessage({ kind: 'error', text: errorMessage(e) })
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="stack" aria-labelledby="export-title">
      <h2 id="export-title">Export and backup</h2>
      <ReadGuard hearth={hearth} reads={[probe]}>
        {() => (
          <form class="card stack" onSubmit={download} aria-label="Export transactions">
            <h3 class="card-title">Transactions as CSV</h3>
            <p class="muted">
              One line per transaction with its date, account, payee, category, memo, amount and status, for a
              spreadsheet. Text that a spreadsheet would run as a formula (starting with =, +, − or @) is
              written with a leading apostrophe, so it stays text.
            </p>
            <div class="row wrap">
              <label>
                From (optional)
                <input type="date" name="from" value={from} onInput={(e) => setFrom(e.currentTarget.value)} />
              </label>
              <label>
                To (optional)
                <input type="date" name="to" value={to} onInput={(e) => setTo(e.currentTarget.value)} />
              </label>
            </div>
            <button type="submit" class="primary" disabled={busy} aria-busy={busy}>
              {busy ? 'Exporting…' : 'Download CSV'}
            </button>
            {message && (
              <p role={message.kind === 'error' ? 'alert' : 'status'} class={message.kind}>
                {message.text}
              </p>
            )}
          </form>
        )}
      </ReadGuard>
      <section class="card stack" aria-labelledby="backup-title">
        <h3 id="backup-title" class="card-title">
          Full backups
        </h3>
        <p>
          A full backup holds every table of the server’s store, so it is made on the machine that runs the
          server, not downloaded here: <code>npm run hearth -- backup --out ./hearth-backup.jsonl</code>, or
          scheduled by setting <code>HEARTH_BACKUP_DIR</code>. <code>npm run hearth -- restore --from …</code>{' '}
          builds a new store from one. Ask whoever runs your Hearth server.
        </p>
      </section>
    </section>
  )
}

/** Every transaction on the replica (between `from` and `to` when given), newest first, with names. */
async function readTransactions(hearth: Hearth, from?: string, to?: string): Promise<CsvTransaction[]> {
  const [accounts, payees, categories] = await Promise.all([
    hearth.query.accounts.list({}),
    hearth.query.payees.list({ include: 'deleted' }),
    hearth.query.categories.list({ include: 'deleted' }),
  ])
  const account = new Map(accounts.items.map((a) => [a.id, a]))
  const payee = new Map(payees.items.map((p) => [p.id, p.name]))
  const category = new Map(categories.items.map((c) => [c.id, c.name]))
  const rows: CsvTransaction[] = []
  let cursor: string | undefined
  do {
    const page = await hearth.query.transactions.list({
      limit: 100,
      ...(cursor && { cursor }),
      ...(from && { dateFrom: from }),
      ...(to && { dateTo: to }),
    })
    for (const t of page.items) {
      const categoryName =
        t.splits.length > 0
          ? t.splits.map((s) => (s.categoryId ? (category.get(s.categoryId) ?? '') : '')).join('; ')
          : t.categoryId
            ? (category.get(t.categoryId) ?? '')
            : ''
      rows.push({
        date: t.date,
        account: account.get(t.accountId)?.name ?? t.accountId,
        payee: (t.payeeId && payee.get(t.payeeId)) || t.importedPayee || '',
        category: categoryName,
        memo: t.memo ?? '',
        amountCents: t.amountCents,
        currency: account.get(t.accountId)?.currency ?? '',
        status: t.status,
      })
    }
    cursor = page.nextCursor ?? undefined
  } while (cursor)
  return rows
}
