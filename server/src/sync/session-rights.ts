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
  /** When the key stops working on its own (ms since the epoch); null for a key without an end. */
  expiresAt: number | null
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
  const { rows } = await sql<{
    i: number
    scopes: string[] | null
    role: Role | null
    expires_at: Date | null
  }>`
    select s.i, k.scopes, m.role, case when k.kind = 'device' then null else k.expires_at end as expires_at
    from unnest(${holders.map((h) => h.keyId)}::text[], ${holders.map((h) => h.householdId)}::text[],
                ${holders.map((h) => h.userId)}::text[]) with ordinality as s(key_id, household_id, user_id, i)
    left join api_keys k on k.id = s.key_id and k.revoked_at is null and k.user_id = s.user_id
      and (k.expires_at is null or k.expires_at > now() or k.kind = 'device')
    left join memberships m on m.household_id = s.household_id and m.user_id = s.user_id
    order by s.i`.execute(db)
  return rows.map((r) => ({
    scopes: (r.scopes as Scope[] | null) ?? null,
    role: r.role ?? null,
    expiresAt: r.expires_at ? new Date(r.expires_at).getTime() : null,
  }))
}

/** Where the rights clock stands (migration 0052): it moves with every committed rights change. */
export async function readRightsClock(db: Kysely<Database>): Promise<string> {
  const { rows } = await sql<{ version: string }>`select version::text from rights_clock`.execute(db)
  return rows[0]?.version ?? '0'
}

/** How the watch is tuned. */
export interface RightsWatchOptions {
  /**
   * How often the watch looks behind the notifications (ms); 0 = never. Each look reads the rights
   * clock, and reads every session's rights again when it moved.
   */
  recheckMs: number
  /**
   * Within how long every session's rights are read again whatever the clock says (ms): a change
   * made with triggers off moves no clock and announces nothing.
   */
  cycleMs: number
  logger: Logger
}

/**
 * Keeps live sessions to the rights their key and membership have now. A rights notification
 * suspends the sessions it names at once (synchronously, before any later notification of a
 * commit is handled) and reads their rights again. Behind the notifications, a periodic look
 * covers one that was lost (a dropped LISTEN connection): it reads the rights clock (one row), and
 * only when the clock moved reads every session's rights. Each look also reads the rights of the
 * sessions that joined since the last one (their rights then, and when a dated key ends), of those
 * whose key has ended since, and of those due: each read makes a session due again after a random
 * half to whole of `cycleMs`, so it is read within `cycleMs` whatever the clock says, and sessions
 * that joined together spread over the cycle.
 */
export class RightsWatch {
  private timer: ReturnType<typeof setInterval> | null = null
  private checking = false
  /** The clock as of the last look that read every session; null until one did. */
  private clock: string | null = null
  /** From each session's last read: when its key ends (ms; Infinity for none), when it is due again. */
  private readonly read = new WeakMap<GuardedSession, { ends: number; due: number }>()

  constructor(
    private readonly store: Store,
    private readonly sessions: () => Iterable<GuardedSession>,
    private readonly options: RightsWatchOptions,
  ) {
    if (options.recheckMs > 0) {
      this.timer = setInterval(() => void this.look(), options.recheckMs)
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

  /**
   * The periodic look: every joined session's rights when the rights clock moved since the last
   * look that read them all; otherwise the sessions new since the last look, those whose key has
   * ended, and those due in the cycle.
   */
  async look(): Promise<void> {
    if (this.checking) return
    this.checking = true
    try {
      // Read before the rights, so a change committed between the two moves it again.
      const clock = await readRightsClock(this.store.db)
      // One pass over the sessions, keeping only those to read: a look is due every second.
      const all = clock !== this.clock
      const now = Date.now()
      const toRead: GuardedSession[] = []
      for (const session of this.sessions()) {
        if (session.holder === null) continue
        const last = all ? undefined : this.read.get(session)
        if (last === undefined || last.ends <= now || last.due <= now) toRead.push(session)
      }
      if ((await this.check(toRead)) && all) this.clock = clock
    } catch (err) {
      this.options.logger.warn({ err }, 'reading the rights clock failed')
    } finally {
      this.checking = false
    }
  }

  /** Reads the rights of `sessions` and hands each its own; false if they could not be read. */
  async check(sessions: GuardedSession[]): Promise<boolean> {
    const joined = sessions.filter((s) => s.holder !== null)
    if (joined.length === 0) return true
    try {
      const rights = await readRights(
        this.store.db,
        joined.map((s) => s.holder!),
      )
      const now = Date.now()
      for (const [i, session] of joined.entries()) {
        const current = rights[i]!
        this.read.set(session, {
          ends: current.expiresAt ?? Number.POSITIVE_INFINITY,
          due: now + this.options.cycleMs * (0.5 + Math.random() / 2),
        })
        session.applyRights(current)
      }
      return true
    } catch (err) {
      // Sessions stay suspended; the next periodic look tries again.
      this.options.logger.warn({ err }, 'reading sync sessions’ rights failed')
      return false
    }
  }

  close(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }
}
