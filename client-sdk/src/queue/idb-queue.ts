import type { MutationQueue, QueueRecord } from './mutation-queue.ts'

const STORE = 'records'

/**
 * A queue in IndexedDB, for browsers: one object store of records in append order, written in
 * transactions with `durability: 'strict'`, so an append resolves only once the browser has
 * flushed it to disk.
 */
export class IdbQueue implements MutationQueue {
  private constructor(private readonly db: IDBDatabase) {}

  /** Opens (or creates) the queue database named `name`. */
  static async open(name: string, factory: IDBFactory = indexedDB): Promise<IdbQueue> {
    const request = factory.open(name, 1)
    request.onupgradeneeded = () => {
      request.result.createObjectStore(STORE, { autoIncrement: true })
    }
    return new IdbQueue(await done(request))
  }

  async read(): Promise<QueueRecord[]> {
    const tx = this.db.transaction(STORE, 'readonly')
    return (await done(tx.objectStore(STORE).getAll())) as QueueRecord[]
  }

  async append(record: QueueRecord): Promise<void> {
    const tx = this.db.transaction(STORE, 'readwrite', { durability: 'strict' })
    tx.objectStore(STORE).add(record)
    await committed(tx)
  }

  async rewrite(records: readonly QueueRecord[]): Promise<void> {
    const tx = this.db.transaction(STORE, 'readwrite', { durability: 'strict' })
    const store = tx.objectStore(STORE)
    store.clear()
    for (const record of records) store.add(record)
    await committed(tx)
  }

  async close(): Promise<void> {
    this.db.close()
  }
}

function done<T>(request: IDBRequest<T>): Promise<T> {
  return new Promise((resolve, reject) => {
    request.onsuccess = () => resolve(request.result)
    request.onerror = () => reject(request.error)
  })
}

function committed(tx: IDBTransaction): Promise<void> {
  return new Promise((resolve, reject) => {
    tx.oncomplete = () => resolve()
    tx.onerror = () => reject(tx.error)
    tx.onabort = () => reject(tx.error ?? new Error('The queue transaction was aborted.'))
  })
}
