import { useState } from 'preact/hooks'
import { errorMessage, formatCents, formatDate } from '../format.ts'
import type { ServerAccess } from '../server-calls.ts'
import { serverCall } from '../server-calls.ts'
import type { AiAction } from './chat-stream.ts'

interface Change {
  before: string
  after: string
}
interface MovePreview {
  month: string
  cells: { categoryId: string; name: string; assignedCents: Change; availableCents: Change }[]
}
interface BulkPreview {
  transactionCount: number
  transactions: {
    id: string
    date: string
    amountCents: string
    changes: Record<string, { before: unknown; after: unknown }>
  }[]
}
interface RulePreview {
  examinedCount: number
  changedCount: number
  truncated: boolean
}

const STATUS_WORDS: Record<AiAction['status'], string> = {
  pending: 'Waiting for you to confirm or cancel.',
  executed: 'Done: the change was made.',
  cancelled: 'Cancelled: nothing was changed.',
  expired: 'Expired: nothing was changed. Ask again to propose it anew.',
  failed: 'It could not be made; nothing was changed.',
}

/**
 * A change the assistant proposed: its summary, the cells or rows it will touch (the server's
 * preview), Confirm and Cancel for the member who asked, and then what came of it.
 */
export function ActionCard(props: {
  access: ServerAccess
  householdId: string
  action: AiAction
  currency: string
  categoryName: (id: string) => string
  onChange: (action: AiAction) => void
}) {
  const { action, currency } = props
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const decide = async (verb: 'confirm' | 'cancel') => {
    setBusy(true)
    setError(null)
    try {
      const path = `/households/${props.householdId}/ai/actions/${action.id}/${verb}`
      props.onChange(await serverCall<AiAction>(props.access, 'POST', path))
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }
  const money = (cents: string) => formatCents(cents, currency)
  return (
    <section
      class="action-card"
      aria-label={`Proposed change: ${action.summary}`}
      data-action={action.id}
      data-status={action.status}
    >
      <p class="action-summary">{action.summary}</p>
      <ActionPreview action={action} money={money} categoryName={props.categoryName} />
      <p role="status" class="action-status">
        {STATUS_WORDS[action.status]}
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      {action.status === 'pending' && (
        <div class="action-buttons">
          <button type="button" class="primary" disabled={busy} onClick={() => decide('confirm')}>
            Confirm
          </button>
          <button type="button" class="ghost" disabled={busy} onClick={() => decide('cancel')}>
            Cancel
          </button>
        </div>
      )}
    </section>
  )
}

/** The preview as a table of what changes, before and after; words for an operation without one. */
function ActionPreview(props: {
  action: AiAction
  money: (cents: string) => string
  categoryName: (id: string) => string
}) {
  const { action, money } = props
  if (action.operation === 'budgets.move') {
    const preview = action.preview as MovePreview
    return (
      <table class="table preview-table" data-preview="budget-cells">
        <caption>Budget cells in {preview.month}</caption>
        <thead>
          <tr>
            <th scope="col">Category</th>
            <th scope="col">Assigned</th>
            <th scope="col">Available</th>
          </tr>
        </thead>
        <tbody>
          {preview.cells.map((cell) => (
            <tr key={cell.categoryId} data-category={cell.categoryId}>
              <th scope="row">{cell.name}</th>
              <td data-before={cell.assignedCents.before} data-after={cell.assignedCents.after}>
                {money(cell.assignedCents.before)} → {money(cell.assignedCents.after)}
              </td>
              <td data-before={cell.availableCents.before} data-after={cell.availableCents.after}>
                {money(cell.availableCents.before)} → {money(cell.availableCents.after)}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )
  }
  if (action.operation === 'transactions.bulkUpdate') {
    const preview = action.preview as BulkPreview
    const value = (field: string, v: unknown) =>
      v === null || v === undefined ? '—' : field === 'categoryId' ? props.categoryName(String(v)) : String(v)
    return (
      <table class="table preview-table" data-preview="rows">
        <caption>
          {preview.transactionCount} transaction{preview.transactionCount === 1 ? '' : 's'}
          {preview.transactionCount > preview.transactions.length &&
            ` (the first ${preview.transactions.length} shown)`}
        </caption>
        <thead>
          <tr>
            <th scope="col">Date</th>
            <th scope="col">Amount</th>
            <th scope="col">Change</th>
          </tr>
        </thead>
        <tbody>
          {preview.transactions.map((row) => (
            <tr key={row.id} data-transaction={row.id}>
              <td>{formatDate(row.date)}</td>
              <td class="amount">{money(row.amountCents)}</td>
              <td>
                {Object.entries(row.changes).map(([field, c]) => (
                  <span key={field} class="preview-change">
                    {field === 'categoryId' ? 'Category' : field}: {value(field, c.before)} →{' '}
                    {value(field, c.after)}
                  </span>
                ))}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    )
  }
  if (action.operation === 'rules.create') {
    const preview = action.preview as RulePreview
    return (
      <p class="muted" data-preview="rule">
        Applied now, the rule would change {preview.changedCount} of the {preview.examinedCount} transactions
        it looked at{preview.truncated ? ' (more than listed)' : ''}.
      </p>
    )
  }
  return <p class="muted">The server gave no preview for this change; its summary says what it does.</p>
}
