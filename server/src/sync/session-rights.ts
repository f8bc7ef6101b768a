import type { Database, Role, Scope, Store } from '@hearth/engine'
import { type Kysely, sql } from 'kysely'
import type { Logger } from 'pino'

/** The channel migration 0020's triggers announce rights changes on. */
export const RIGHTS_CHANNEL = 'hearth_rights'

/** Whose rights changed: one key's, or one member's in one household. */
export type RightsChange = { keyId: string } | { householdId: string; userId: string }

/** Reads a `RIGHTS_CHANNEL` payload (`key:<id>` or `member:<householdId>:<userId>`). */
export function parseRightsChange(payload: string): RightsChange | null {
  const [kind, first, second] = payload.split(':')
  if (kind === 'key' && first) return { keyId: first }
  if (kind === 'member' && first && second) return { householdId: first, userId: second }
  return null
}

/** Who a live session acts as: its key, and its member in its household. */
export interface SessionHolder {
  keyId: string
  userId: string
  householdId: string
}

/** A holder's rights as the store holds them now; null fields are gone (revoked, removed). */
export interface CurrentRights {
  scopes: Scope[] | null
  role: Role | null
}

/** A session whose rights the watch keeps checking. */
export interface GuardedSession {
  /** Null until the session has joined a household. */
  readonly holder: SessionHolder | null
  /** Stop delivering rows until the rights are read again. */
  suspend(): void
  /** Continue, narrow or close, as the rights now are. */
  applyRights(rights: CurrentRights): void
}

/** Reads the current rights of many holders in one statement. */
export async function readRights(
  db: Kysely<Database>,
  holders: readonly SessionHolder[],
): Promise<CurrentRights[]> {
  if (holders.length === 0) return []
  const { rows } = await sql<{ i: number; scopes: string[] | null; role: Role | null }>`
    select s.i, k.scopes, m.role
    from unnest(${holders.map((h) => h.keyId)}::text[], ${holders.map((h) => h.householdId)}::text[],
                ${holders.map((h) => h.userId)}::text[]) with ordinality as s(key_id, household_id, user_id, i)
    left join api_keys k on k.id = s.key_id and k.revoked_at is null and k.user_id = s.user_id
      and (k.expires_at is null or k.expires_at > now() or k.kind = 'device')
    left join memberships m on m.household_id = s.household_id and m.user_id = s.user_id
    order by s.i`.execute(db)
  return rows.map((r) => ({ scopes: (r.scopes as Scope[] | null) ?? null, role: r.role ?? null }))
}

/** How the watch is tuned. */
export interface RightsWatchOptions {
  /** How often every session's rights are read again, behind the notifications (ms); 0 = never. */
  recheckMs: number
  logger: Logger
}

/**
 * Keeps live sessions to the rights their key and membership have now. A rights notification
 * suspends the sessions it names at once (synchronously, before any later notification of a
 * commit is handled) and reads their rights again; a periodic read of every session's rights
 * covers a notification that was lost (a dropped LISTEN connection).
 */
export class RightsWatch {
  private timer: ReturnType<typeof setInterval> | null = null
  private checking = false

  constructor(
    private readonly store: Store,
    private readonly sessions: () => Iterable<GuardedSession>,
    private readonly options: RightsWatchOptions,
  ) {
    if (options.recheckMs > 0) {
      this.timer = setInterval(() => void this.recheckAll(), options.recheckMs)
      this.timer.unref()
    }
  }

  /** A rights notification: the sessions it names stop at once and are judged again. */
  changed(change: RightsChange): void {
    const affected = [...this.sessions()].filter((s) => {
      const h = s.holder
      if (!h) return false
      return 'keyId' in change
        ? h.keyId === change.keyId
        : h.householdId === change.householdId && h.userId === change.userId
    })
    for (const session of affected) session.suspend()
    if (affected.length > 0) void this.check(affected)
  }

  /** Reads every joined session's rights again. */
  async recheckAll(): Promise<void> {
    if (this.checking) return
    this.checking = true
    try {
      await this.check([...this.sessions()].filter((s) => s.holder !== null))
    } finally {
      this.checking = false
    }
  }

  /** Reads the rights of `sessions` and hands each its own. */
  async check(sessions: GuardedSession[]): Promise<void> {
    const joined = sessions.filter((s) => s.holder !== null)
    if (joined.length === 0) return
    try {
      const rights = await readRights(
        this.store.db,
        joined.map((s) => s.holder!),
      )
      for (const [i, session] of joined.entries()) session.applyRights(rights[i]!)
    } catch (err) {
      // Sessions stay suspended; the next periodic check tries again.
      this.options.logger.warn({ err }, 'reading sync sessions’ rights failed')
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }
}
