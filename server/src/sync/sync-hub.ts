import type { Store } from '@hearth/engine'
import { type HouseholdDelta, readHouseholdDelta } from '@hearth/engine/sync'
import type { Logger } from 'pino'

/** A connected device, as the hub sees it: which household it follows, and how to wake it. */
export interface HubMember {
  householdId: string
  clientId: string
  /** The version the member's replica is at; null while it waits for a snapshot. */
  readonly cursor: number | null
  /** Something committed: the member reads its own delta. */
  householdChanged(): void
  /** Something committed, and here is the household's delta, read once for all its members. */
  offer(delta: HouseholdDelta): void
}

/** How the hub watches for changes it did not cause itself. */
export interface SyncHubOptions {
  /** How often the household clocks of followed households are read; 0 turns polling off. */
  pollMs?: number
  logger?: Logger
}

/**
 * The in-process fan-out: connected devices by household. A sync push calls `notify` as soon as
 * it commits. Every other write (REST routes, jobs, other instances on the same database) is
 * found by PostgreSQL `LISTEN` when a database URL is configured, and by polling the followed
 * households' clocks (one indexed read per interval), which is also the safety net behind LISTEN.
 */
export class SyncHub {
  private readonly members = new Map<string, Set<HubMember>>()
  private readonly seen = new Map<string, number>()
  private timer: ReturnType<typeof setInterval> | null = null
  private polling = false
  /**
   * Households with a fan-out read running, and what was asked for meanwhile: another read
   * (`any`), or only versions up to `upTo`, which the running read may already cover.
   */
  private readonly broadcasting = new Map<string, { any: boolean; upTo: number }>()
  /** The version each household's last fan-out read reached. */
  private readonly delivered = new Map<string, number>()

  constructor(
    private readonly store: Store,
    private readonly options: SyncHubOptions = {},
  ) {
    this.setPollInterval(options.pollMs ?? 50)
  }

  /** Changes how often clocks are polled; 0 stops polling. */
  setPollInterval(pollMs: number): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
    if (pollMs > 0) {
      this.timer = setInterval(() => void this.poll(), pollMs)
      this.timer.unref()
    }
  }

  /** Starts waking `member` on changes to its household. */
  join(member: HubMember): void {
    let set = this.members.get(member.householdId)
    if (!set) {
      set = new Set()
      this.members.set(member.householdId, set)
    }
    set.add(member)
  }

  leave(member: HubMember): void {
    const set = this.members.get(member.householdId)
    if (!set) return
    set.delete(member)
    if (set.size === 0) {
      this.members.delete(member.householdId)
      this.seen.delete(member.householdId)
      this.delivered.delete(member.householdId)
    }
  }

  /**
   * Wakes every device of a household: something there committed. The household's delta is read
   * once and offered to each device, rather than read once per device; calls that come while a
   * read runs are folded into one more read after it.
   */
  notify(householdId: string, version?: number): void {
    if (!this.members.has(householdId)) return
    // A version the last read reached (LISTEN announcing a push this instance already fanned out).
    if (version !== undefined && version <= (this.delivered.get(householdId) ?? -1)) return
    const running = this.broadcasting.get(householdId)
    if (running) {
      if (version === undefined) running.any = true
      else running.upTo = Math.max(running.upTo, version)
      return
    }
    this.broadcasting.set(householdId, { any: false, upTo: -1 })
    void this.broadcast(householdId)
  }

  /**
   * Offers a delta this instance just committed (a push's own rows) to every device of the
   * household, without reading it back. A device whose cursor is behind the delta's start reads
   * its own delta instead (see `SyncSession.deliver`).
   */
  offer(householdId: string, delta: HouseholdDelta): void {
    const members = this.members.get(householdId)
    if (!members) return
    this.delivered.set(householdId, Math.max(delta.version, this.delivered.get(householdId) ?? -1))
    for (const m of members) if (m.cursor !== null) m.offer(delta)
  }

  private async broadcast(householdId: string): Promise<void> {
    try {
      const members = [...(this.members.get(householdId) ?? [])].filter((m) => m.cursor !== null)
      if (members.length === 0) return
      const since = Math.min(...members.map((m) => m.cursor!))
      try {
        const delta = await readHouseholdDelta(
          this.store.db,
          householdId,
          since,
          members.map((m) => m.clientId),
        )
        if (delta)
          this.delivered.set(householdId, Math.max(delta.version, this.delivered.get(householdId) ?? -1))
        for (const m of members) {
          if (delta) m.offer(delta)
          else m.householdChanged()
        }
      } catch (err) {
        this.options.logger?.warn({ err }, 'sync fan-out read failed; devices read their own')
        for (const m of members) m.householdChanged()
      }
    } finally {
      const asked = this.broadcasting.get(householdId)
      this.broadcasting.delete(householdId)
      if (asked?.any) this.notify(householdId)
      else if (asked && asked.upTo >= 0) this.notify(householdId, asked.upTo)
    }
  }

  /** How many devices follow a household now. */
  connected(householdId: string): number {
    return this.members.get(householdId)?.size ?? 0
  }

  /** Stops polling; members are closed by whoever owns their sockets. */
  close(): void {
    if (this.timer) clearInterval(this.timer)
    this.timer = null
  }

  private async poll(): Promise<void> {
    if (this.polling || this.members.size === 0) return
    this.polling = true
    try {
      const households = [...this.members.keys()]
      const rows = await this.store.db
        .selectFrom('household_clock')
        .select(['household_id', 'version'])
        .where('household_id', 'in', households)
        .execute()
      for (const { household_id, version } of rows) {
        const before = this.seen.get(household_id)
        this.seen.set(household_id, version)
        // A household seen for the first time is woken too: its devices skip a delta with nothing new.
        // With the version, so a change a fan-out already delivered (most of them: every push
        // offers its own rows) costs nothing, rather than a fan-out read every interval.
        if (before !== version) this.notify(household_id, version)
      }
    } catch (err) {
      this.options.logger?.warn({ err }, 'sync poll failed')
    } finally {
      this.polling = false
    }
  }
}
