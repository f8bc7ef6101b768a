import type { NotificationKind } from './kinds.ts'

/** The event a notification comes from, as the outbox holds it. */
export interface SourceEvent {
  id: string
  type: string
  occurredAt: string
  /** The member whose action emitted it; absent or `system` for the server's own. */
  actorUserId?: string | null
  data: Record<string, unknown>
}

/** What one event tells members: the kind, words, and a link to what it concerns. */
export interface Draft {
  kind: NotificationKind
  title: string
  body: string
  subject: Record<string, string>
  /** For a threshold kind, the absolute amount in cents the threshold is compared with. */
  amountCents?: bigint
}

/** The notification an event makes, if any; the words are the same for every member. */
export function draftFor(event: SourceEvent, format: (cents: string) => string): Draft | null {
  // The catalog's schemas checked these payloads when they were emitted.
  const d = event.data as {
    transaction: { id: string; accountId: string; amountCents: string; date: string }
    month: string
    categoryId: string
    availableCents: string
    subscription: { id: string; url: string }
    connection: { id: string; institutions: string[] }
    reason: string
    recurrenceId: string
    name: string
    scheduledAmountCents: string
    observedAmountCents: string
    accountId: string
    date: string
    amountCents: string
    currency: string
    projectedBalanceCents: string
    clientId: string
    mutationId: number
    operation: string
    targetId: string | null
    message: string
    attempts: number
    windowMinutes: number
    addresses: string[]
  }
  switch (event.type) {
    case 'transaction.created': {
      const t = d.transaction
      const amount = BigInt(t.amountCents)
      return {
        kind: 'large_transaction',
        title: `Large transaction: ${format(t.amountCents)}`,
        body: `A transaction of ${format(t.amountCents)} on ${t.date} was recorded.`,
        subject: { type: 'transaction', transactionId: t.id, accountId: t.accountId },
        amountCents: amount < 0n ? -amount : amount,
      }
    }
    case 'budget.overrun':
      return {
        kind: 'budget_overrun',
        title: `Overspent in ${d.month}`,
        body: `A category is ${format(String(d.availableCents).replace(/^-/, ''))} over budget for ${d.month}.`,
        subject: { type: 'budgetCategory', categoryId: d.categoryId, month: d.month },
      }
    case 'webhook.disabled':
      return {
        kind: 'webhook_disabled',
        title: 'A webhook was disabled',
        body: `Deliveries to ${d.subscription.url} stopped: ${d.reason}`,
        subject: { type: 'webhookSubscription', subscriptionId: d.subscription.id },
      }
    case 'bankConnection.needsAttention':
      return {
        kind: 'bank_connection_attention',
        title: 'A bank connection needs attention',
        body: `${d.connection.institutions.join(', ') || 'A bank connection'} stopped syncing: ${d.reason}`,
        subject: { type: 'bankConnection', connectionId: d.connection.id },
      }
    case 'recurrence.dueSoon':
      return {
        kind: 'bill_due_soon',
        title: `${d.name} is due ${d.date}`,
        body: `${d.name}: ${format(d.amountCents.replace(/^-/, ''))} is due on ${d.date}.`,
        subject: { type: 'recurrence', recurrenceId: d.recurrenceId, accountId: d.accountId, date: d.date },
      }
    case 'recurrence.priceChanged':
      return {
        kind: 'recurrence_price_change',
        title: `${d.name} changed price`,
        body: `${d.name} was charged ${format(d.observedAmountCents.replace(/^-/, ''))} twice, not the scheduled ${format(d.scheduledAmountCents.replace(/^-/, ''))}.`,
        subject: { type: 'recurrence', recurrenceId: d.recurrenceId },
      }
    case 'account.lowBalanceAhead':
      return {
        kind: 'low_balance_ahead',
        title: `${d.name} may fall below zero on ${d.date}`,
        body: `${d.name} is forecast at ${format(d.projectedBalanceCents)} ${d.currency} on ${d.date}, after what is scheduled until then.`,
        subject: { type: 'account', accountId: d.accountId, date: d.date },
      }
    case 'change.refused':
      return {
        kind: 'change_refused',
        title: 'A change from your device was refused',
        body: `The server refused ${d.operation}: ${d.message}`,
        subject: {
          type: 'change',
          operation: d.operation,
          clientId: d.clientId,
          mutationId: String(d.mutationId),
          ...(d.targetId !== null && { targetId: d.targetId }),
        },
      }
    case 'signIn.failedPasswords':
      return {
        kind: 'sign_in_failures',
        title: 'Wrong passwords were tried for your account',
        body: `${d.attempts} wrong passwords were tried for your account within ${d.windowMinutes} minutes, from ${d.addresses.join(', ') || 'an unknown address'}. If this was not you, keep your password to yourself and add a second factor.`,
        subject: { type: 'signIn', userId: event.actorUserId ?? '' },
      }
    default:
      return null
  }
}
