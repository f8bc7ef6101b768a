import type { Hearth } from '@hearth/client'
import type { JSX } from 'preact'
import { memo } from 'preact/compat'
import { useEffect, useLayoutEffect, useMemo, useRef, useState } from 'preact/hooks'
import { HistoryPanel } from '../components/activity-list.tsx'
import { centsToInput, errorMessage, formatCents, formatDate, parseCents, today } from '../format.ts'
import { type QueryArgs, type QueryResult, useWatch, type Watched } from '../hooks.ts'
import { type Lookups, useLookups } from '../lookups.ts'
import { NoteEditor } from '../notes/note-editor.tsx'
import { ReadGuard, ReadMessage } from '../reads/read-guard.tsx'
import { type ReadProblem, readProblem } from '../reads/read-problem.ts'
import { navigate } from '../router.ts'
import { incomeFirst, isInflow, offeredCategory } from './offered-category.ts'
import { type EditedFields, transactionEdit } from './register/transaction-edit.ts'
import { useRowWindow } from './register/use-row-window.ts'

type Transaction = QueryResult<'transactions.list'>['items'][number]

/**
 * The register of one account, or of all accounts: add, edit, split, categorize (with the
 * suggested category and one click to accept), tag, delete; search over payee and memo.
 * Keyboard first: arrows move between rows, Enter opens a row and saves it, Escape closes it.
 */
export function RegisterScreen(props: { hearth: Hearth; accountId: string | null }) {
  const { hearth, accountId } = props
  const lookups = useLookups(hearth)
  const [search, setSearch] = useState('')
  const [pages, setPages] = useState<(string | undefined)[]>([undefined])
  const [editing, setEditing] = useState<string | null>(null)
  useEffect(() => {
    setPages([undefined])
    setEditing(null)
  }, [accountId, search])
  const account = accountId ? lookups.account.get(accountId) : null
  const title = accountId ? (account?.name ?? 'Account') : 'All transactions'
  const filter = { accountId, search: search.trim() }
  const watched = useRegisterPages(hearth, filter, pages)

  return (
    <section aria-labelledby="register-title" class="register">
      <header class="screen-header">
        <div>
          <h1 id="register-title">{title}</h1>
          {account && (
            <p class="muted account-balances">
              Balance <strong class="amount">{formatCents(account.balanceCents, account.currency)}</strong> ·
              cleared {formatCents(account.clearedBalanceCents, account.currency)} · uncleared{' '}
              {formatCents(account.unclearedBalanceCents, account.currency)}
            </p>
          )}
        </div>
        <label class="search">
          <span class="visually-hidden">Search payee, memo and category</span>
          <input
            type="search"
            name="search"
            placeholder="Search payee, memo and category"
            value={search}
            onInput={(e) => setSearch(e.currentTarget.value)}
          />
        </label>
      </header>
      {watched.watches}
      <ReadGuard hearth={hearth} reads={Object.values(lookups.reads)}>
        {() => (
          <>
            <AddTransaction hearth={hearth} accountId={accountId} lookups={lookups} />
            <div class="card register-card">
              <RegisterTable
                hearth={hearth}
                title={title}
                accountId={accountId}
                searching={filter.search !== ''}
                lookups={lookups}
                loaded={watched.loaded}
                editing={editing}
                setEditing={setEditing}
                onMore={(cursor) =>
                  setPages((shown) => (shown.includes(cursor) ? shown : [...shown, cursor]))
                }
              />
            </div>
          </>
        )}
      </ReadGuard>
      {accountId && <NoteEditor hearth={hearth} target={{ kind: 'account', id: accountId }} />}
    </section>
  )
}

type RegisterPage = QueryResult<'transactions.list'>

/** The pages read so far, in order, as one list: where the next page starts, or why it is missing. */
interface Loaded {
  rows: Transaction[]
  /** The cursor of the page after the last one read, when there is one and it is not asked yet. */
  more: string | null
  /** Why the first page not read yet is missing (still opening, refused, no replica yet). */
  problem: ReadProblem | null
}

/**
 * Each page of the register shown (100 rows, from its cursor) as a live query of its own, as
 * paging has always read them, joined into one list for the window. `watches` renders nothing: it
 * holds each page's query (`useWatch`), which reports its answers here.
 */
function useRegisterPages(
  hearth: Hearth,
  filter: { accountId: string | null; search: string },
  cursors: readonly (string | undefined)[],
): { watches: JSX.Element[]; loaded: Loaded } {
  const [answers, setAnswers] = useState(() => new Map<string, Watched<RegisterPage>>())
  const report = useRef((key: string, answer: Watched<RegisterPage> | null) =>
    setAnswers((before) => {
      const after = new Map(before)
      if (answer) after.set(key, answer)
      else after.delete(key)
      return after
    }),
  )
  const keyOf = (cursor: string | undefined) => `${filter.accountId}|${filter.search}|${cursor ?? ''}`
  const watches = cursors.map((cursor) => (
    <PageWatch
      key={keyOf(cursor)}
      id={keyOf(cursor)}
      hearth={hearth}
      args={{
        limit: 100,
        ...(filter.accountId && { accountId: filter.accountId }),
        ...(filter.search && { search: filter.search }),
        ...(cursor && { cursor }),
      }}
      report={report.current}
    />
  ))
  const pages = cursors.map((cursor) => answers.get(keyOf(cursor)))
  const same = useRef(new SameRows())
  const loaded = useMemo(() => joinPages(pages, cursors, same.current), [...pages, cursors])
  return { watches, loaded }
}

/**
 * Keeps a row's object while its content is the same: a page read again (a row added or changed
 * on it) answers with new objects for all its rows, and the memoized `TransactionRow` renders
 * again only those whose content changed.
 */
class SameRows {
  private readonly byId = new Map<string, { json: string; row: Transaction }>()
  private readonly pages = new WeakMap<readonly Transaction[], Transaction[]>()

  of(items: readonly Transaction[]): Transaction[] {
    let rows = this.pages.get(items)
    if (rows) return rows
    rows = items.map((row) => {
      const json = JSON.stringify(row)
      const before = this.byId.get(row.id)
      if (before?.json === json) return before.row
      this.byId.set(row.id, { json, row })
      return row
    })
    this.pages.set(items, rows)
    return rows
  }
}

/** The pages' rows in order, up to the first page not read; a row a later page repeats (rows added
 * between two pages' reads shift them) is listed once. */
function joinPages(
  pages: readonly (Watched<RegisterPage> | undefined)[],
  cursors: readonly (string | undefined)[],
  same: SameRows,
): Loaded {
  const rows: Transaction[] = []
  const seen = new Set<string>()
  for (const page of pages) {
    const data = page?.data
    if (!data)
      return { rows, more: null, problem: readProblem([page ?? { data: undefined, error: undefined }], null) }
    for (const t of same.of(data.items))
      if (!seen.has(t.id)) {
        seen.add(t.id)
        rows.push(t)
      }
  }
  const next = pages.at(-1)?.data?.nextCursor ?? null
  return { rows, more: next && !cursors.includes(next) ? next : null, problem: null }
}

/** One page's live query, reporting each answer to `report` under `id`; renders nothing. */
function PageWatch(props: {
  hearth: Hearth
  id: string
  args: QueryArgs<'transactions.list'>
  report: (id: string, answer: Watched<RegisterPage> | null) => void
}) {
  const page = useWatch(props.hearth, 'transactions.list', props.args)
  useLayoutEffect(() => props.report(props.id, page), [page.data, page.error, page.pending])
  useLayoutEffect(() => () => props.report(props.id, null), [])
  return null
}

/**
 * The register's table, windowed (`register/window.ts`): of the rows read, only those near the
 * viewport are rows of the page, with a spacer row above and below standing for the rest, so a
 * register of any length scrolls as one of a hundred rows does. The open editor and the row with
 * the keyboard's focus stay rendered wherever they are. `aria-rowcount` and each row's
 * `aria-rowindex` tell assistive technology where a row is among them all.
 */
function RegisterTable(props: {
  hearth: Hearth
  title: string
  accountId: string | null
  searching: boolean
  lookups: Lookups
  loaded: Loaded
  editing: string | null
  setEditing: (next: string | null | ((current: string | null) => string | null)) => void
  onMore: (cursor: string) => void
}) {
  const { loaded, editing, setEditing } = props
  const { rows } = loaded
  const columns = props.accountId ? 6 : 7
  // The row the keyboard is on (tabbable, the others not): the first until another is chosen.
  const [current, setCurrent] = useState<string | null>(null)
  const body = useRef<HTMLTableSectionElement>(null)
  const focusNext = useRef<string | null>(null)
  const keys = useMemo(() => rows.map((t) => (t.id === editing ? `editor:${t.id}` : t.id)), [rows, editing])
  const indexOf = useMemo(() => new Map(rows.map((t, i) => [t.id, i])), [rows])
  const currentIndex = current === null ? 0 : (indexOf.get(current) ?? 0)
  const pinned = [currentIndex, ...(editing === null ? [] : [indexOf.get(editing) ?? -1])]
  const parts = useRowWindow(keys, body, pinned)

  // A row reached with the arrow keys is rendered (pinned) by now, where the spacers put it: it
  // takes the focus, and is scrolled into view until it stays there (the rows rendered around it
  // may be measured taller or shorter than their estimates, which moves it).
  useLayoutEffect(() => {
    const id = focusNext.current
    if (id === null) return
    const row = body.current?.querySelector<HTMLElement>(`tr.txn-row[data-id="${id}"]`)
    if (!row) return
    if (document.activeElement !== row) row.focus({ preventScroll: true })
    const box = row.getBoundingClientRect()
    // (Scrolled to whole pixels, a row may end a fraction of one below the viewport.)
    if (box.top >= -1 && box.bottom <= window.innerHeight + 1) focusNext.current = null
    else row.scrollIntoView({ block: 'nearest' })
  })
  // What a row asks of the table, the same functions every render, so a row the window keeps
  // as it moves is not rendered again (`TransactionRow` is memoized).
  const latestRows = useRef(rows)
  latestRows.current = rows
  const actions = useMemo<RowActions>(
    () => ({
      open: (id) => {
        setCurrent(id)
        setEditing(id)
      },
      focus: (id) => setCurrent(id),
      move: (from, step) => {
        const next = latestRows.current[from + step]
        if (!next) return
        focusNext.current = next.id
        setCurrent(next.id)
      },
    }),
    [setEditing],
  )

  return (
    <table
      class="table register-table"
      aria-label={`${props.title} transactions`}
      // Every row and the header row; unknown (-1) while older pages are still to read.
      aria-rowcount={loaded.more || loaded.problem ? -1 : rows.length + 1}
      // The rows read so far, for tests and bench:web (the page holds only the window's).
      data-rows={rows.length}
    >
      <thead>
        <tr aria-rowindex={1}>
          <th scope="col">Date</th>
          {!props.accountId && <th scope="col">Account</th>}
          <th scope="col">Payee</th>
          <th scope="col">Category</th>
          <th scope="col">Memo</th>
          <th scope="col" class="num">
            Amount
          </th>
          <th scope="col">
            <span class="visually-hidden">Status</span>
          </th>
        </tr>
      </thead>
      <tbody ref={body} aria-busy={loaded.problem?.kind === 'opening'}>
        {parts.map((part) => {
          if (!('row' in part))
            return (
              // biome-ignore lint/a11y/noAriaHiddenOnFocusable: an empty row, not focusable; the rows it stands for are not read out.
              <tr key={`gap-${part.from}`} class="register-spacer" aria-hidden="true">
                <td colSpan={columns} style={{ height: `${part.height}px` }} />
              </tr>
            )
          const t = rows[part.row]!
          return t.id === editing ? (
            <EditTransaction
              key={t.id}
              hearth={props.hearth}
              transaction={t}
              lookups={props.lookups}
              columns={columns}
              rowIndex={part.row + 2}
              // A save that lands after another row was opened closes nothing but its own editor.
              onClose={() => setEditing((now) => (now === t.id ? null : now))}
            />
          ) : (
            <TransactionRow
              key={t.id}
              hearth={props.hearth}
              transaction={t}
              lookups={props.lookups}
              showAccount={!props.accountId}
              rowIndex={part.row + 2}
              tabbable={part.row === currentIndex}
              actions={actions}
            />
          )
        })}
        {loaded.problem ? (
          <tr>
            <td colSpan={columns}>
              <ReadMessage problem={loaded.problem} />
            </td>
          </tr>
        ) : (
          rows.length === 0 && (
            <tr>
              <td colSpan={columns} class="muted empty">
                {props.searching ? 'No transaction matches.' : 'No transactions yet.'}
              </td>
            </tr>
          )
        )}
        {loaded.more && (
          <tr>
            <td colSpan={columns} class="more">
              <button type="button" class="small" onClick={() => loaded.more && props.onMore(loaded.more)}>
                Show older transactions
              </button>
            </td>
          </tr>
        )}
      </tbody>
    </table>
  )
}

/** What a register row asks of its table. */
interface RowActions {
  open: (id: string) => void
  /** The row with the focus is the keyboard's row. */
  focus: (id: string) => void
  /** From the row at `from` to the next row (1) or the previous one (-1), by the arrow keys. */
  move: (from: number, step: 1 | -1) => void
}

interface TransactionRowProps {
  hearth: Hearth
  transaction: Transaction
  lookups: Lookups
  showAccount: boolean
  /** Where the row is among all the register's rows, the header row being 1. */
  rowIndex: number
  tabbable: boolean
  actions: RowActions
}

/**
 * What a row shows of the lookups. The lookups are a new object whenever a payee, category, tag
 * or account changes (every balance does, at every row added), so a row compares the names it
 * shows rather than the lookups themselves.
 */
function namesShown(p: TransactionRowProps): string {
  const t = p.transaction
  const account = p.lookups.account.get(t.accountId)
  return [
    p.showAccount ? (account?.name ?? '') : '',
    account?.currency ?? '',
    t.payeeId ? (p.lookups.payeeName.get(t.payeeId) ?? '') : '',
    t.categoryId ? (p.lookups.categoryName.get(t.categoryId) ?? '') : '',
    t.suggestedCategoryId ? (p.lookups.categoryName.get(t.suggestedCategoryId) ?? '') : '',
    ...t.tagIds.map((id) => p.lookups.tagName.get(id) ?? ''),
  ].join('\u0000')
}

function sameRow(before: TransactionRowProps, after: TransactionRowProps): boolean {
  return (
    before.transaction === after.transaction &&
    before.hearth === after.hearth &&
    before.showAccount === after.showAccount &&
    before.rowIndex === after.rowIndex &&
    before.tabbable === after.tabbable &&
    before.actions === after.actions &&
    namesShown(before) === namesShown(after)
  )
}

const TransactionRow = memo(function TransactionRow(props: TransactionRowProps) {
  const { transaction: t, lookups, actions } = props
  const open = () => actions.open(t.id)
  const currency = lookups.account.get(t.accountId)?.currency
  const amount = BigInt(t.amountCents)
  const system =
    t.kind === 'opening_balance' ? 'Opening balance' : t.kind === 'adjustment' ? 'Balance adjustment' : null
  const payee = t.payeeId ? (lookups.payeeName.get(t.payeeId) ?? '') : (system ?? '')
  const category =
    system !== null && !t.categoryId
      ? '—'
      : t.splits.length > 0
        ? 'Split'
        : t.categoryId
          ? (lookups.categoryName.get(t.categoryId) ?? '')
          : t.transferGroupId
            ? 'Transfer'
            : ''
  const suggestion = !t.categoryId && t.splits.length === 0 ? t.suggestedCategoryId : null
  return (
    <tr
      class="txn-row"
      tabIndex={props.tabbable ? 0 : -1}
      data-id={t.id}
      data-key={t.id}
      aria-rowindex={props.rowIndex}
      aria-label={`${formatDate(t.date)} ${payee} ${formatCents(t.amountCents, currency)}`}
      onKeyDown={(e) => {
        if (e.target !== e.currentTarget) return
        if (e.key === 'Enter') {
          e.preventDefault()
          open()
        } else if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
          e.preventDefault()
          actions.move(props.rowIndex - 2, e.key === 'ArrowDown' ? 1 : -1)
        }
      }}
      onFocus={(e) => e.target === e.currentTarget && actions.focus(t.id)}
      onDblClick={open}
    >
      <td class="date">
        <time dateTime={t.date}>{formatDate(t.date)}</time>
      </td>
      {props.showAccount && <td class="account">{lookups.account.get(t.accountId)?.name ?? ''}</td>}
      <td class="payee">
        <button
          type="button"
          class="row-open"
          onClick={open}
          aria-label={`Edit ${payee || 'transaction'} on ${formatDate(t.date)}`}
        >
          {payee || <span class="muted">No payee</span>}
        </button>
      </td>
      <td class="category">
        {suggestion ? (
          <span class="suggestion">
            <span class="muted">Suggested:</span> {lookups.categoryName.get(suggestion) ?? 'a category'}{' '}
            <button
              type="button"
              class="small accept"
              onClick={() => void props.hearth.mutate.transactions.acceptSuggestion({ id: t.id })}
              aria-label={`Accept ${lookups.categoryName.get(suggestion) ?? 'the suggested category'} for ${payee || 'this transaction'}`}
            >
              ✓ Accept
            </button>
          </span>
        ) : category ? (
          category
        ) : (
          <span class="uncategorized">Uncategorized</span>
        )}
        {t.tagIds.length > 0 && (
          <span class="tags">
            {t.tagIds.map((id) => (
              <span key={id} class="tag">
                {lookups.tagName.get(id) ?? ''}
              </span>
            ))}
          </span>
        )}
      </td>
      <td class="memo">{t.memo ?? ''}</td>
      <td class={`num amount ${amount < 0n ? '' : 'inflow'}`}>{formatCents(t.amountCents, currency)}</td>
      <td class="status">
        <span class={`status-mark status-${t.status}`} title={t.status}>
          {t.status === 'reconciled' ? '🔒' : t.status === 'cleared' ? 'C' : ''}
          <span class="visually-hidden">{t.status}</span>
        </span>
      </td>
    </tr>
  )
}, sameRow)

interface Draft {
  accountId: string
  date: string
  payee: string
  categoryId: string
  memo: string
  outflow: string
  inflow: string
  cleared: boolean
  tagIds: string[]
  splits: { categoryId: string; memo: string; amount: string }[]
}

function draftOf(t: Transaction, lookups: Lookups): Draft {
  const amount = BigInt(t.amountCents)
  return {
    accountId: t.accountId,
    date: t.date,
    payee: t.payeeId ? (lookups.payeeName.get(t.payeeId) ?? '') : '',
    categoryId: t.categoryId ?? '',
    memo: t.memo ?? '',
    outflow: amount < 0n ? centsToInput(-amount) : '',
    inflow: amount >= 0n ? centsToInput(amount) : '',
    cleared: t.status !== 'pending',
    tagIds: [...t.tagIds],
    splits: t.splits.map((s) => ({
      categoryId: s.categoryId ?? '',
      memo: s.memo ?? '',
      amount: centsToInput(s.amountCents),
    })),
  }
}

/** The draft's amount in cents, or an error for a person. */
function draftAmount(d: Draft): bigint | string {
  const out = d.outflow.trim() ? parseCents(d.outflow) : 0n
  const inn = d.inflow.trim() ? parseCents(d.inflow) : 0n
  if (out === null || inn === null) return 'Amounts are numbers such as 12.50.'
  return inn - out
}

/** The draft as the row's fields, or an error for a person. */
function editedFields(d: Draft, status: Transaction['status']): EditedFields | string {
  const amount = draftAmount(d)
  if (typeof amount === 'string') return amount
  const splits = draftSplits(d, amount)
  if (typeof splits === 'string') return splits
  return {
    date: d.date,
    amountCents: amount.toString(),
    payeeName: d.payee.trim(),
    categoryId: splits.length > 0 ? null : d.categoryId || null,
    memo: d.memo.trim() || null,
    ...(status !== 'reconciled' && { status: d.cleared ? 'cleared' : 'pending' }),
    tagIds: d.tagIds,
    splits,
  }
}

function draftSplits(
  d: Draft,
  total: bigint,
): { amountCents: string; categoryId: string | null; memo: string | null }[] | string {
  if (d.splits.length === 0) return []
  const parts = d.splits.map((s) => ({ cents: parseCents(s.amount), s }))
  if (parts.some((p) => p.cents === null)) return 'Each part needs an amount.'
  const sum = parts.reduce((a, p) => a + (p.cents as bigint), 0n)
  if (sum !== total) return `The parts add up to ${centsToInput(sum)}, not ${centsToInput(total)}.`
  return parts.map((p) => ({
    amountCents: String(p.cents),
    categoryId: p.s.categoryId || null,
    memo: p.s.memo || null,
  }))
}

function EditTransaction(props: {
  hearth: Hearth
  transaction: Transaction
  lookups: Lookups
  columns: number
  rowIndex: number
  onClose: () => void
}) {
  const { hearth, transaction: t, lookups } = props
  const [initial] = useState(() => draftOf(t, lookups))
  const [draft, setDraft] = useState(initial)
  const [error, setError] = useState<string | null>(null)
  const first = useRef<HTMLInputElement>(null)
  useEffect(() => first.current?.focus(), [])
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch })
  const close = () => {
    props.onClose()
    requestAnimationFrame(() => {
      // Back to the row, unless another row's editor opened meanwhile and has the focus.
      if (document.querySelector('tr.editor-row')) return
      document.querySelector<HTMLElement>(`tr.txn-row[data-id="${t.id}"]`)?.focus()
    })
  }

  const save = async (event: Event) => {
    event.preventDefault()
    const after = editedFields(draft, t.status)
    if (typeof after === 'string') return setError(after)
    // What the editor opened with, read the same way, so only what the person changed is sent.
    const before = editedFields(initial, t.status)
    const update = transactionEdit(t.id, typeof before === 'string' ? null : before, after)
    try {
      if (update) await hearth.mutate.transactions.update(update)
      close()
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  const remove = async () => {
    try {
      await hearth.mutate.transactions.delete({ id: t.id })
      props.onClose()
    } catch (e) {
      setError(errorMessage(e))
    }
  }

  return (
    <tr class="editor-row" data-id={t.id} data-key={`editor:${t.id}`} aria-rowindex={props.rowIndex}>
      <td colSpan={props.columns}>
        <form
          class="txn-editor"
          onSubmit={save}
          aria-label="Edit transaction"
          onKeyDown={(e) => {
            if (e.key === 'Escape') {
              e.preventDefault()
              close()
            }
          }}
        >
          <div class="editor-fields">
            <label>
              Date
              <input
                ref={first}
                type="date"
                name="date"
                required
                value={draft.date}
                onInput={(e) => set({ date: e.currentTarget.value })}
              />
            </label>
            <label class="grow">
              Payee
              <input
                name="payee"
                list="payee-names"
                value={draft.payee}
                onInput={(e) => set({ payee: e.currentTarget.value })}
              />
            </label>
            {draft.splits.length === 0 && (
              // biome-ignore lint/a11y/noLabelWithoutControl: CategorySelect renders the select.
              <label class="grow">
                Category
                <CategorySelect
                  label="Category"
                  lookups={lookups}
                  value={draft.categoryId}
                  inflow={isInflow(draft)}
                  onChange={(categoryId) => set({ categoryId })}
                />
              </label>
            )}
            <MemoAndAmounts draft={draft} set={set} />
            <label class="check">
              <input
                type="checkbox"
                name="cleared"
                checked={draft.cleared}
                disabled={t.status === 'reconciled'}
                onChange={(e) => set({ cleared: e.currentTarget.checked })}
              />
              Cleared
            </label>
          </div>
          {t.suggestedCategoryId && !t.categoryId && (
            <p class="suggestion">
              Suggested category: <strong>{lookups.categoryName.get(t.suggestedCategoryId)}</strong>
              {t.suggestionReason && <span class="muted"> ({t.suggestionReason})</span>}{' '}
              <button
                type="button"
                class="small"
                onClick={() => set({ categoryId: t.suggestedCategoryId ?? '' })}
              >
                Use it
              </button>
            </p>
          )}
          <SplitEditor draft={draft} set={set} lookups={lookups} />
          <TagPicker
            hearth={hearth}
            lookups={lookups}
            value={draft.tagIds}
            onChange={(tagIds) => set({ tagIds })}
          />
          {error && (
            <p role="alert" class="error">
              {error}
            </p>
          )}
          <div class="editor-actions">
            <button type="submit" class="primary">
              Save
            </button>
            <button type="button" onClick={close}>
              Cancel
            </button>
            <button type="button" class="ghost" onClick={() => navigate(`/rules?from=${t.id}`)}>
              Make a rule from this
            </button>
            <span class="spacer" />
            <button type="button" class="danger ghost" onClick={remove}>
              Delete
            </button>
          </div>
          <NoteEditor hearth={hearth} target={{ kind: 'transaction', id: t.id }} />
        </form>
        <HistoryPanel filter={{ transactionId: t.id }} title="History of this transaction" />
        <PayeeNames lookups={lookups} />
      </td>
    </tr>
  )
}

/** A row's memo and its amount as outflow or inflow, in the entry row and the editor alike. */
function MemoAndAmounts(props: { draft: Draft; set: (patch: Partial<Draft>) => void }) {
  const { draft, set } = props
  return (
    <>
      <label class="grow">
        Memo
        <input name="memo" value={draft.memo} onInput={(e) => set({ memo: e.currentTarget.value })} />
      </label>
      <label>
        Outflow
        <input
          class="amount-field"
          name="outflow"
          inputMode="decimal"
          value={draft.outflow}
          onInput={(e) => set({ outflow: e.currentTarget.value })}
        />
      </label>
      <label>
        Inflow
        <input
          class="amount-field"
          name="inflow"
          inputMode="decimal"
          value={draft.inflow}
          onInput={(e) => set({ inflow: e.currentTarget.value })}
        />
      </label>
    </>
  )
}

function SplitEditor(props: { draft: Draft; set: (patch: Partial<Draft>) => void; lookups: Lookups }) {
  const { draft, set } = props
  const total = draftAmount(draft)
  if (draft.splits.length === 0) {
    return (
      <button
        type="button"
        class="small split-toggle"
        onClick={() =>
          set({
            splits: [
              {
                categoryId: draft.categoryId,
                memo: '',
                amount: typeof total === 'bigint' ? centsToInput(total) : '',
              },
              { categoryId: '', memo: '', amount: '0.00' },
            ],
          })
        }
      >
        Split
      </button>
    )
  }
  const update = (i: number, patch: Partial<Draft['splits'][number]>) =>
    set({ splits: draft.splits.map((s, j) => (j === i ? { ...s, ...patch } : s)) })
  return (
    <fieldset class="splits">
      <legend>Split into parts (negative amounts are money out)</legend>
      {draft.splits.map((s, i) => (
        <div class="split-line" key={i}>
          {/* biome-ignore lint/a11y/noLabelWithoutControl: CategorySelect renders the select. */}
          <label class="grow">
            Part {i + 1} category
            <CategorySelect
              label={`Part ${i + 1} category`}
              lookups={props.lookups}
              value={s.categoryId}
              onChange={(categoryId) => update(i, { categoryId })}
            />
          </label>
          <label class="grow">
            Part {i + 1} memo
            <input value={s.memo} onInput={(e) => update(i, { memo: e.currentTarget.value })} />
          </label>
          <label>
            Part {i + 1} amount
            <input
              class="amount-field"
              inputMode="decimal"
              value={s.amount}
              onInput={(e) => update(i, { amount: e.currentTarget.value })}
            />
          </label>
          <button
            type="button"
            class="ghost small"
            aria-label={`Remove part ${i + 1}`}
            onClick={() => set({ splits: draft.splits.filter((_, j) => j !== i) })}
          >
            ✕
          </button>
        </div>
      ))}
      <div class="row">
        <button
          type="button"
          class="small"
          onClick={() => set({ splits: [...draft.splits, { categoryId: '', memo: '', amount: '0.00' }] })}
        >
          Add a part
        </button>
        <button type="button" class="small ghost" onClick={() => set({ splits: [] })}>
          Remove the split
        </button>
      </div>
    </fieldset>
  )
}

function TagPicker(props: {
  hearth: Hearth
  lookups: Lookups
  value: string[]
  onChange: (ids: string[]) => void
}) {
  const [name, setName] = useState('')
  const add = async () => {
    const wanted = name.trim()
    if (!wanted) return
    const existing = props.lookups.tags.find((t) => t.name.toLowerCase() === wanted.toLowerCase())
    const id = existing?.id ?? (await props.hearth.mutate.tags.create({ name: wanted })).id
    if (!props.value.includes(id)) props.onChange([...props.value, id])
    setName('')
  }
  return (
    <fieldset class="tag-picker">
      <legend>Tags</legend>
      {props.lookups.tags.map((t) => (
        <label key={t.id} class="tag-choice">
          <input
            type="checkbox"
            checked={props.value.includes(t.id)}
            onChange={(e) =>
              props.onChange(
                e.currentTarget.checked ? [...props.value, t.id] : props.value.filter((id) => id !== t.id),
              )
            }
          />
          {t.name}
        </label>
      ))}
      <label class="new-tag">
        <span class="visually-hidden">New tag</span>
        <input
          placeholder="New tag"
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
          onKeyDown={(e) => {
            if (e.key === 'Enter') {
              e.preventDefault()
              void add()
            }
          }}
        />
      </label>
    </fieldset>
  )
}

/**
 * A category to choose, under its group; for money coming in (`inflow`), the income groups come
 * first, as YNAB and Actual offer Ready to Assign first for an inflow.
 */
export function CategorySelect(props: {
  lookups: Lookups
  value: string
  onChange: (id: string) => void
  name?: string
  label?: string
  inflow?: boolean
}) {
  const groups = props.inflow ? incomeFirst(props.lookups.categoryGroups) : props.lookups.categoryGroups
  return (
    <select
      name={props.name ?? 'category'}
      aria-label={props.label}
      value={props.value}
      onChange={(e) => props.onChange(e.currentTarget.value)}
    >
      <option value="">Uncategorized</option>
      {groups.map(({ group, categories }) => (
        <optgroup key={group.id} label={group.name}>
          {categories.map((c) => (
            <option key={c.id} value={c.id}>
              {c.name}
            </option>
          ))}
        </optgroup>
      ))}
    </select>
  )
}

function PayeeNames(props: { lookups: Lookups }) {
  return (
    <datalist id="payee-names">
      {props.lookups.payees.map((p) => (
        <option key={p.id} value={p.name} />
      ))}
    </datalist>
  )
}

/** The entry row: Enter saves and leaves the date for the next one. */
function AddTransaction(props: { hearth: Hearth; accountId: string | null; lookups: Lookups }) {
  const { hearth, lookups } = props
  const empty = (): Draft => ({
    accountId: props.accountId ?? lookups.accounts.find((a) => a.status === 'open')?.id ?? '',
    date: today(),
    payee: '',
    categoryId: '',
    memo: '',
    outflow: '',
    inflow: '',
    cleared: false,
    tagIds: [],
    splits: [],
  })
  const [draft, setDraft] = useState(empty)
  // Whether the person picked the category; until then an inflow is offered an income category.
  const [chosen, setChosen] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const payeeField = useRef<HTMLInputElement>(null)
  const categoryId = offeredCategory(draft, chosen, lookups.categoryGroups)
  // The row's account: the one chosen, else the register's, else the first open one (which may
  // arrive after the form has been filled in).
  const accountId =
    (props.accountId ?? draft.accountId) || lookups.accounts.find((a) => a.status === 'open')?.id || ''
  const set = (patch: Partial<Draft>) => setDraft({ ...draft, ...patch })
  const save = async (event: Event) => {
    event.preventDefault()
    const amount = draftAmount(draft)
    if (typeof amount === 'string') return setError(amount)
    if (!lookups.ready) return
    if (!accountId) return setError('Choose an account.')
    const payee = draft.payee.trim()
    try {
      await hearth.mutate.transactions.create({
        accountId,
        date: draft.date,
        amountCents: amount.toString(),
        ...(payee && { payeeName: payee }),
        categoryId: categoryId || null,
        memo: draft.memo.trim() || null,
        status: draft.cleared ? 'cleared' : 'pending',
      })
      setError(null)
      setChosen(false)
      setDraft({ ...empty(), accountId: draft.accountId, date: draft.date })
      payeeField.current?.focus()
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <form class="card add-txn" onSubmit={save} aria-label="Add a transaction">
      {/* Disabled until the accounts, payees and categories are read: a row saved before then
          would have no account to go to. */}
      <fieldset class="add-txn-fields" disabled={!lookups.ready}>
        <div class="editor-fields">
          {!props.accountId && (
            <label>
              Account
              <select
                name="accountId"
                value={accountId}
                onChange={(e) => set({ accountId: e.currentTarget.value })}
              >
                {lookups.accounts
                  .filter((a) => a.status === 'open')
                  .map((a) => (
                    <option key={a.id} value={a.id}>
                      {a.name}
                    </option>
                  ))}
              </select>
            </label>
          )}
          <label>
            Date
            <input
              type="date"
              name="date"
              required
              value={draft.date}
              onInput={(e) => set({ date: e.currentTarget.value })}
            />
          </label>
          <label class="grow">
            Payee
            <input
              ref={payeeField}
              name="payee"
              list="payee-names-add"
              value={draft.payee}
              onInput={(e) => set({ payee: e.currentTarget.value })}
            />
          </label>
          {/* biome-ignore lint/a11y/noLabelWithoutControl: CategorySelect renders the select. */}
          <label class="grow">
            Category
            <CategorySelect
              label="Category"
              lookups={lookups}
              value={categoryId}
              inflow={isInflow(draft)}
              onChange={(id) => {
                setChosen(true)
                set({ categoryId: id })
              }}
            />
          </label>
          <MemoAndAmounts draft={draft} set={set} />
          <button type="submit" class="primary add-button">
            Add
          </button>
        </div>
      </fieldset>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <datalist id="payee-names-add">
        {lookups.payees.map((p) => (
          <option key={p.id} value={p.name} />
        ))}
      </datalist>
    </form>
  )
}
