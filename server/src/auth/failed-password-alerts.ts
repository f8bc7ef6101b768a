import {
  type NotificationChannel,
  newUlid,
  operations,
  runMutation,
  SCOPES,
  type Store,
} from '@hearth/engine'

/** When a person is told of wrong passwords tried for their account; docs/security.md. */
export interface FailedPasswordAlertOptions {
  /** Wrong passwords for one account within the window that make a notification (5). */
  threshold: number
  /** The window, in milliseconds (15 minutes). */
  windowMs: number
}

export const DEFAULT_FAILED_PASSWORD_ALERTS: FailedPasswordAlertOptions = {
  threshold: 5,
  windowMs: 15 * 60_000,
}

interface Entry {
  windowEnds: number
  failures: number
  addresses: Set<string>
  told: boolean
}

/** What a person is told: how many wrong passwords, within how long, from where. */
export interface FailedPasswordAlert {
  attempts: number
  windowMinutes: number
  addresses: string[]
}

/**
 * Counts wrong passwords per account, and answers an alert once per window: the failure that
 * reaches the threshold does, and none after it until the window ends. Kept in this process's
 * memory, as the backoff is; a window's count starts at its first failure.
 */
export class FailedPasswordAlerts {
  private readonly entries = new Map<string, Entry>()

  constructor(
    readonly options: FailedPasswordAlertOptions = DEFAULT_FAILED_PASSWORD_ALERTS,
    private readonly clock: () => number = Date.now,
  ) {}

  /** Counts a wrong password for `account` from `address`; the alert to send, when this one makes it. */
  failed(account: string, address: string): FailedPasswordAlert | null {
    const now = this.clock()
    this.sweep(now)
    let entry = this.entries.get(account)
    if (!entry || now >= entry.windowEnds) {
      entry = { windowEnds: now + this.options.windowMs, failures: 0, addresses: new Set(), told: false }
      this.entries.set(account, entry)
    }
    entry.failures++
    if (entry.addresses.size < 10) entry.addresses.add(address)
    if (entry.told || entry.failures < this.options.threshold) return null
    entry.told = true
    return {
      attempts: entry.failures,
      windowMinutes: Math.round(this.options.windowMs / 60_000),
      addresses: [...entry.addresses],
    }
  }

  private sweep(now: number): void {
    if (this.entries.size < 10_000) return
    for (const [account, entry] of this.entries) if (now >= entry.windowEnds) this.entries.delete(account)
  }
}

/**
 * Tells the person of wrong passwords tried for their account: a `sign_in_failures` notification
 * in each of their households (in the feed, and by email when the server sends mail).
 */
export async function notifyFailedPasswords(
  store: Store,
  userId: string,
  alert: FailedPasswordAlert,
  channels: readonly NotificationChannel[],
): Promise<void> {
  const memberships = await store.db
    .selectFrom('memberships')
    .select('household_id')
    .where('user_id', '=', userId)
    .execute()
  const now = new Date()
  const event = {
    id: newUlid(),
    type: 'signIn.failedPasswords',
    occurredAt: now.toISOString(),
    actorUserId: userId,
    data: { ...alert },
  }
  for (const { household_id: householdId } of memberships) {
    await runMutation(
      store.db,
      operations.notifications.generate,
      { event, channels: [...channels] },
      { householdId, userId: 'system', role: 'owner', scopes: SCOPES, now },
    )
  }
}
