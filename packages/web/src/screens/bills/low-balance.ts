/** How far ahead the engine's low-balance check looks (`LOW_BALANCE_AHEAD_DAYS`): today to today + 14. */
export const LOW_BALANCE_AHEAD_DAYS = 14

/** An upcoming item as `recurrences.upcoming` lists it, reduced to what the check reads. */
export interface BalanceStep {
  date: string
  accountId: string
  amountCents: string
  projectedBalanceCents: string
}

/** The first day an account's forecast end-of-day balance drops below zero. */
export interface LowBalanceDay {
  accountId: string
  date: string
  projectedBalanceCents: string
}

/**
 * The engine's low-balance check (`recurrences.announceLowBalances`) on the items the screen
 * already reads: for each cash account, the first day up to `today + 14` whose end-of-day balance
 * is below zero while the day before (or today's balance before anything coming) was at zero or
 * above. An account already below zero has no crossing until it is forecast back above.
 */
export function lowBalanceDays(
  items: readonly BalanceStep[],
  cashAccountIds: ReadonlySet<string>,
  today: string,
): LowBalanceDay[] {
  const last = addDays(today, LOW_BALANCE_AHEAD_DAYS)
  const byAccount = new Map<string, BalanceStep[]>()
  for (const item of items) {
    if (!cashAccountIds.has(item.accountId) || item.date > last) continue
    const mine = byAccount.get(item.accountId) ?? []
    mine.push(item)
    byAccount.set(item.accountId, mine)
  }
  const days: LowBalanceDay[] = []
  for (const [accountId, mine] of byAccount) {
    const first = mine[0]!
    let before = BigInt(first.projectedBalanceCents) - BigInt(first.amountCents)
    for (let i = 0; i < mine.length; i++) {
      const item = mine[i]!
      // The day's last item holds its end-of-day balance.
      if (mine[i + 1]?.date === item.date) continue
      const balance = BigInt(item.projectedBalanceCents)
      if (before >= 0n && balance < 0n) {
        days.push({ accountId, date: item.date, projectedBalanceCents: item.projectedBalanceCents })
        break
      }
      before = balance
    }
  }
  return days
}

/** `date` (YYYY-MM-DD) moved by `days` calendar days. */
export function addDays(date: string, days: number): string {
  const [y, m, d] = date.split('-').map(Number) as [number, number, number]
  return new Date(Date.UTC(y, m - 1, d + days)).toISOString().slice(0, 10)
}
