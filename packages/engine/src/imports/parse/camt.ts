import {
  isRealDay,
  parseCents,
  type RefusedRow,
  type Statement,
  StatementError,
  type StatementRow,
} from './statement.ts'
import { at, listOf, parseXml, textOf } from './xml.ts'

const ARRAYS = new Set(['Stmt', 'Ntry', 'NtryDtls', 'TxDtls', 'Bal', 'Ustrd'])

function lineOfEach(text: string, tag: RegExp): number[] {
  const lines: number[] = []
  let line = 1
  let from = 0
  for (const m of text.matchAll(tag)) {
    for (let i = from; i < m.index; i++) if (text.charCodeAt(i) === 10) line++
    from = m.index
    lines.push(line)
  }
  return lines
}

function dayOf(node: unknown): string | null {
  const text = textOf(at(node, 'Dt')) ?? textOf(at(node, 'DtTm'))
  const day = text?.slice(0, 10) ?? null
  return day && isRealDay(day) ? day : null
}

/** The counterparty of a booking: the creditor when money went out, the debtor when it came in. */
function counterparty(tx: unknown, debit: boolean): string | null {
  const parties = at(tx, 'RltdPties')
  return (
    textOf(at(parties, debit ? 'Cdtr' : 'Dbtr', 'Nm')) ??
    textOf(at(parties, debit ? 'Cdtr' : 'Dbtr', 'Pty', 'Nm')) ??
    textOf(at(parties, debit ? 'Cdtr' : 'Dbtr', 'Pty', 'Nm'))
  )
}

function remittance(tx: unknown): string | null {
  const parts = listOf(at(tx, 'RmtInf', 'Ustrd'))
    .map(textOf)
    .filter((s): s is string => s !== null)
  return parts.length > 0 ? parts.join(' ') : null
}

/**
 * Reads a camt.053 bank-to-customer statement (ISO 20022) as European banks export it: each
 * booked entry (Ntry) is a row on its booking date, signed by its credit/debit indicator, with
 * the counterparty's name as payee, the unstructured remittance information as memo and the
 * entry reference (NtryRef, else AcctSvcrRef) as external id. A batch booking whose
 * transaction details each carry an amount adding up to the entry becomes one row per detail
 * (`<ref>:<n>`). The closing booked balance (CLBD) is the file's ledger balance.
 */
export function parseCamt053(text: string): Statement {
  if (!/<(?:\w+:)?Document[\s>]/.test(text)) {
    throw new StatementError('IMPORT_FILE_UNREADABLE', 'No <Document> element: this is not a camt.053 file.')
  }
  if (!/<\/(?:\w+:)?Document>/.test(text)) {
    throw new StatementError('IMPORT_FILE_TRUNCATED', 'The file ends before </Document>: it was cut short.')
  }
  const doc = parseXml(text, ARRAYS)
  const statements = listOf(at(doc, 'Document', 'BkToCstmrStmt', 'Stmt'))
  if (statements.length === 0)
    throw new StatementError(
      'IMPORT_FILE_UNREADABLE',
      'No BkToCstmrStmt/Stmt: this is not a camt.053 statement.',
    )
  const ibans = new Set(
    statements.map(
      (s) =>
        (textOf(at(s, 'Acct', 'Id', 'IBAN')) ?? textOf(at(s, 'Acct', 'Id', 'Othr', 'Id')))
          ?.replace(/\s+/g, '')
          .toUpperCase() || null,
    ),
  )
  if (ibans.size > 1)
    throw new StatementError(
      'IMPORT_MULTIPLE_ACCOUNTS',
      `The file holds statements of ${ibans.size} accounts; export one account per file.`,
    )
  const lines = lineOfEach(text, /<(?:\w+:)?Ntry>/g)
  const rows: StatementRow[] = []
  const refused: RefusedRow[] = []
  let currency: string | null = null
  let ledgerBalance: Statement['ledgerBalance'] = null
  let n = 0
  for (const s of statements) {
    currency ??= textOf(at(s, 'Acct', 'Ccy'))
    for (const bal of listOf(at(s, 'Bal'))) {
      if (textOf(at(bal, 'Tp', 'CdOrPrtry', 'Cd')) !== 'CLBD') continue
      const cents = parseCents(textOf(at(bal, 'Amt')) ?? '')
      if (cents === null) continue
      const sign = textOf(at(bal, 'CdtDbtInd')) === 'DBIT' ? -1 : 1
      ledgerBalance = { amountCents: sign * cents, date: dayOf(at(bal, 'Dt')) }
    }
    for (const entry of listOf(at(s, 'Ntry'))) {
      const line = lines[n++] ?? 1
      if ((textOf(at(entry, 'Sts', 'Cd')) ?? textOf(at(entry, 'Sts'))) === 'PDNG') continue
      const amountNode = at(entry, 'Amt')
      currency ??= (amountNode as Record<string, string> | undefined)?.['@Ccy'] ?? null
      const entryCurrency = (amountNode as Record<string, string> | undefined)?.['@Ccy'] ?? null
      if (currency && entryCurrency && entryCurrency !== currency) {
        refused.push({ line, reason: `The entry is in ${entryCurrency}, the statement in ${currency}.` })
        continue
      }
      const debit = textOf(at(entry, 'CdtDbtInd')) === 'DBIT'
      const cents = parseCents(textOf(amountNode) ?? '')
      const date = dayOf(at(entry, 'BookgDt')) ?? dayOf(at(entry, 'ValDt'))
      if (cents === null) {
        refused.push({ line, reason: `Amt ${JSON.stringify(textOf(amountNode))} is not an amount in cents.` })
        continue
      }
      if (date === null) {
        refused.push({ line, reason: 'The entry has no booking date.' })
        continue
      }
      const ref = textOf(at(entry, 'NtryRef')) ?? textOf(at(entry, 'AcctSvcrRef'))
      const details = listOf(at(entry, 'NtryDtls')).flatMap((d) => listOf(at(d, 'TxDtls')))
      const parts = details.map((d) =>
        parseCents(textOf(at(d, 'AmtDtls', 'TxAmt', 'Amt')) ?? textOf(at(d, 'Amt')) ?? ''),
      )
      const split =
        details.length > 1 && parts.every((p) => p !== null) && parts.reduce((a, b) => a! + b!, 0) === cents
      if (split) {
        details.forEach((d, i) => {
          rows.push({
            line,
            date,
            amountCents: (debit ? -1 : 1) * parts[i]!,
            payee: counterparty(d, debit),
            memo: remittance(d),
            externalId: ref ? `${ref}:${i + 1}` : textOf(at(d, 'Refs', 'EndToEndId')),
          })
        })
        continue
      }
      const first = details[0]
      rows.push({
        line,
        date,
        amountCents: (debit ? -1 : 1) * cents,
        payee: first ? counterparty(first, debit) : null,
        memo: (first ? remittance(first) : null) ?? textOf(at(entry, 'AddtlNtryInf')),
        externalId: ref,
      })
    }
  }
  return { format: 'camt053', currency, bankAccountId: [...ibans][0] ?? null, ledgerBalance, rows, refused }
}
