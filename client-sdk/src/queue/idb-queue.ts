import { type DBSchema, type IDBPDatabase, openDB } from 'idb'
import type { MutationQueue, QueueRecord } from './mutation-queue.ts'

/** The queue database: one object store of records under auto-increment keys, in append order. */
interface QueueDb extends DBSchema {
  records: { key: number; value: QueueRecord }
}

/**
 * A queue in IndexedDB, for browsers: every write is a transaction with `durability: 'strict'`,
 * so an append resolves only once the browser has flushed it to disk.
 */
export class IdbQueue implements MutationQueue {
  private constructor(private readonly db: IDBPDatabase<QueueDb>) {}

  /** Opens (or creates) the queue database named `name` in the page's IndexedDB. */
  static async open(name: string): Promise<IdbQueue> {
    const db = await openDB<QueueDb>(name, 1, {
      upgrade: (db) => {
        db.createObjectStore('records', { autoIncrement: true })
      },
    })
    return new IdbQueue(db)
  }

  read(): Promise<QueueRecord[]> {
    return this.db.getAll('records')
  }

  async append(record: QueueRecord): Promise<void> {
    const tx = this.db.transaction('records', 'readwrite', { durability: 'strict' })
    await Promise.all([tx.store.add(record), tx.done])
  }

  async rewrite(records: readonly QueueRecord[]): Promise<void> {
    const tx = this.db.transaction('records', 'readwrite', { durability: 'strict' })
    await Promise.all([tx.store.clear(), ...records.map((r) => tx.store.add(r)), tx.done])
  }

  async close(): Promise<void> {
    this.db.close()
  }
}
