import { type FileHandle, mkdir, open, readFile, rename } from 'node:fs/promises'
import { dirname } from 'node:path'
import type { MutationQueue, QueueRecord } from '../queue/mutation-queue.ts'

/**
 * A queue as an append-only file of JSON lines, opened with O_SYNC (`as`), so each append is one
 * write that returns once durable: one trip to the thread pool, which runs while PGlite applies
 * the mutation on the main thread (an append then an fsync needed the main thread in between,
 * which PGlite holds, so the two ran one after the other). A crash mid-append
 * leaves at most one torn last line, which `read` skips: its mutation was never applied either,
 * because the replica commits a mutation only after its line is durable.
 */
export class FileQueue implements MutationQueue {
  private handle: FileHandle | null = null

  private constructor(private readonly path: string) {}

  static async open(path: string): Promise<FileQueue> {
    await mkdir(dirname(path), { recursive: true })
    const queue = new FileQueue(path)
    queue.handle = await open(path, 'as')
    return queue
  }

  async read(): Promise<QueueRecord[]> {
    const text = await readFile(this.path, 'utf8')
    const records: QueueRecord[] = []
    for (const line of text.split('\n')) {
      if (!line) continue
      try {
        records.push(JSON.parse(line) as QueueRecord)
      } catch {
        // Only the last line can be torn; anything after it was never acknowledged.
        break
      }
    }
    return records
  }

  async append(record: QueueRecord): Promise<void> {
    await this.requireOpen().write(`${JSON.stringify(record)}\n`)
  }

  async rewrite(records: readonly QueueRecord[]): Promise<void> {
    const temp = `${this.path}.tmp`
    const out = await open(temp, 'w')
    try {
      await out.writeFile(records.map((r) => `${JSON.stringify(r)}\n`).join(''))
      await out.sync()
    } finally {
      await out.close()
    }
    await this.requireOpen().close()
    this.handle = null
    await rename(temp, this.path)
    await syncDirectory(dirname(this.path))
    this.handle = await open(this.path, 'as')
  }

  async close(): Promise<void> {
    await this.handle?.close()
    this.handle = null
  }

  private requireOpen(): FileHandle {
    if (!this.handle) throw new Error(`The queue ${this.path} is closed.`)
    return this.handle
  }
}

/** Makes a rename durable: the directory entry is data too. */
async function syncDirectory(dir: string): Promise<void> {
  const handle = await open(dir, 'r')
  try {
    await handle.sync()
  } catch {
    // Some platforms cannot fsync a directory; the rename is still atomic there.
  } finally {
    await handle.close()
  }
}
