import { formatCents, formatDate } from '../../format.ts'
import type { QueryResult } from '../../hooks.ts'

type Terms = QueryResult<'loans.termsHistory'>['items'][number]

/** Every change of a loan's terms, newest first, as `loans.termsHistory` lists them. */
export function TermsHistory(props: { items: Terms[]; currency: string }) {
  const money = (cents: string) => formatCents(cents, props.currency)
  return (
    <section class="card stack" aria-labelledby="loan-terms-title" data-panel="terms">
      <h2 id="loan-terms-title" class="card-title">
        Terms history
      </h2>
      <table class="table">
        <caption class="visually-hidden">Each change of the loan’s terms, newest first</caption>
        <thead>
          <tr>
            <th scope="col">From</th>
            <th scope="col" class="num">
              Owed
            </th>
            <th scope="col" class="num">
              Rate
            </th>
            <th scope="col" class="num">
              Payment
            </th>
            <th scope="col" class="num">
              Escrow
            </th>
            <th scope="col">First payment</th>
            <th scope="col" class="num">
              Term
            </th>
          </tr>
        </thead>
        <tbody>
          {props.items.map((t) => (
            <tr key={t.effectiveDate} data-effective={t.effectiveDate}>
              <th scope="row">{formatDate(t.effectiveDate)}</th>
              <td class="num">{money(t.principalCents)}</td>
              <td class="num">{t.annualRatePercent}%</td>
              <td class="num">{money(t.paymentCents)}</td>
              <td class="num">{money(t.escrowCents)}</td>
              <td>{formatDate(t.firstPaymentDate)}</td>
              <td class="num">{t.termMonths === null ? 'until paid' : `${t.termMonths} months`}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
}
