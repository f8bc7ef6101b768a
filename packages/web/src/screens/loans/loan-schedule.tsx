import { useEffect, useState } from 'preact/hooks'
import { formatCents, formatDate } from '../../format.ts'

type Row = {
  number: number
  date: string
  paymentCents: string
  principalCents: string
  interestCents: string
  escrowCents: string
  extraCents: string
  balanceCents: string
}

/** Payments a page of the schedule shows: two years. */
export const PAGE_SIZE = 24

/**
 * The amortization table a page of two years at a time (a 30-year loan has 360 rows), opening on
 * the page that holds this month's payment.
 */
export function LoanSchedule(props: { rows: Row[]; currency: string; currentIndex: number; title: string }) {
  const { rows, currency } = props
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE))
  const start = Math.min(pages - 1, Math.floor(props.currentIndex / PAGE_SIZE))
  const [page, setPage] = useState(start)
  useEffect(() => setPage(start), [start, rows.length])
  const shown = rows.slice(page * PAGE_SIZE, (page + 1) * PAGE_SIZE)
  const money = (cents: string) => formatCents(cents, currency)
  return (
    <div class="stack" data-table="schedule">
      <div style={{ overflowX: 'auto' }}>
        <table class="table">
          <caption class="visually-hidden">
            {props.title}: payments {shown[0]?.number ?? 0} to {shown.at(-1)?.number ?? 0} of {rows.length}
          </caption>
          <thead>
            <tr>
              <th scope="col">No.</th>
              <th scope="col">Date</th>
              <th scope="col" class="num">
                Payment
              </th>
              <th scope="col" class="num">
                Principal
              </th>
              <th scope="col" class="num">
                Interest
              </th>
              <th scope="col" class="num">
                Escrow
              </th>
              <th scope="col" class="num">
                Balance after
              </th>
            </tr>
          </thead>
          <tbody>
            {shown.map((r) => (
              <tr
                key={r.number}
                data-number={r.number}
                aria-current={r.number === props.currentIndex + 1 ? 'date' : undefined}
              >
                <th scope="row">{r.number}</th>
                <td>{formatDate(r.date)}</td>
                <td class="num" data-cents={r.paymentCents}>
                  {money(r.paymentCents)}
                </td>
                <td class="num" data-cents={r.principalCents}>
                  {money(r.principalCents)}
                  {BigInt(r.extraCents) > 0n && (
                    <span class="muted small"> (extra {money(r.extraCents)})</span>
                  )}
                </td>
                <td class="num" data-cents={r.interestCents}>
                  {money(r.interestCents)}
                </td>
                <td class="num" data-cents={r.escrowCents}>
                  {money(r.escrowCents)}
                </td>
                <td class="num" data-cents={r.balanceCents}>
                  {money(r.balanceCents)}
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </div>
      <nav class="row" aria-label="Schedule pages">
        <button type="button" class="ghost" disabled={page === 0} onClick={() => setPage(page - 1)}>
          Earlier payments
        </button>
        <span aria-live="polite">
          Page {page + 1} of {pages}
        </span>
        <button type="button" class="ghost" disabled={page >= pages - 1} onClick={() => setPage(page + 1)}>
          Later payments
        </button>
      </nav>
    </div>
  )
}
