/**
 * The durable write-ahead copy of a device's mutations. A mutation is appended (and made
 * durable) before the replica applies it; on start the queue is reconciled with the replica,
 * so a device killed at any moment neither loses nor re-applies one.
 */
export type QueueRecord =
  /**
   * Which device and household this queue belongs to; first. `floor` (after a rewrite) is the
   * highest mutation id ever issued, so ids are never reused even when every record is gone.
   */
  | { type: 'client'; clientId: string; householdId: string; floor?: number }
  /** A local mutation, as it will be pushed. */
  | { type: 'mutation'; id: number; name: string; args: unknown; at: string }
  /** A mutation the replica refused while the caller waited: it is not pushed again. */
  | { type: 'drop'; id: number }
  /** Ids up to `through` may have been pushed already: a restart issues none of them again. */
  | { type: 'reserve'; through: number }

/** Where a device keeps its queue: an fsynced file in Node, an idb store in browsers. */
export interface MutationQueue {
  /** Every record, oldest first; a torn last record (a crash mid-append) is left out. */
  read(): Promise<QueueRecord[]>
  /** Appends a record; resolves once it is durable. */
  append(record: QueueRecord): Promise<void>
  /** Atomically replaces the queue's content, to drop what the server has confirmed. */
  rewrite(records: readonly QueueRecord[]): Promise<void>
  close(): Promise<void>
}

/** A queue in memory: for `memory://` replicas, whose rows do not survive the process either. */
export class MemoryQueue implements MutationQueue {
  private records: QueueRecord[] = []

  async read(): Promise<QueueRecord[]> {
    return [...this.records]
  }

  async append(record: QueueRecord): Promise<void> {
    this.records.push(structuredClone(record))
  }

  async rewrite(records: readonly QueueRecord[]): Promise<void> {
    this.records = records.map((r) => structuredClone(r))
  }

  async close(): Promise<void> {}
}
