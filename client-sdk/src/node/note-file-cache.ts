import {
  closeSync,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readFileSync,
  renameSync,
  rmSync,
  writeSync,
} from 'node:fs'
import { join } from 'node:path'
import * as Y from 'yjs'
import type { NoteCache } from '../notes.ts'

/** Updates a note file holds before it is rewritten as one merged update. */
const COMPACT_AFTER = 100
const CACHE_ORIGIN = Symbol('note-file-cache')

/**
 * A note's document in the device's folder: `notes/<name>.yupdates`, each Yjs update appended as a
 * 4-byte length and its bytes, fsynced before the next; a torn last record (a crash mid-append) is
 * ignored. On open the file is read into the doc and, past 100 updates, rewritten as one.
 */
export function openNoteFile(folder: string, name: string, doc: Y.Doc): NoteCache {
  const dir = join(folder, 'notes')
  mkdirSync(dir, { recursive: true })
  const path = join(dir, `${encodeURIComponent(name)}.yupdates`)
  const updates: Uint8Array[] = []
  if (existsSync(path)) {
    const bytes = readFileSync(path)
    let at = 0
    while (at + 4 <= bytes.length) {
      const length = bytes.readUInt32BE(at)
      if (at + 4 + length > bytes.length) break
      updates.push(new Uint8Array(bytes.subarray(at + 4, at + 4 + length)))
      at += 4 + length
    }
  }
  if (updates.length > 0) {
    doc.transact(() => {
      for (const update of updates) Y.applyUpdate(doc, update)
    }, CACHE_ORIGIN)
  }
  if (updates.length > COMPACT_AFTER) {
    const tmp = `${path}.tmp`
    const fd = openSync(tmp, 'w')
    writeRecord(fd, Y.encodeStateAsUpdate(doc))
    fsyncSync(fd)
    closeSync(fd)
    renameSync(tmp, path)
  }
  const fd = openSync(path, 'a')
  const onUpdate = (update: Uint8Array, origin: unknown) => {
    if (origin === CACHE_ORIGIN) return
    writeRecord(fd, update)
    fsyncSync(fd)
  }
  doc.on('update', onUpdate)
  return {
    whenLoaded: Promise.resolve(),
    async close() {
      doc.off('update', onUpdate)
      closeSync(fd)
    },
    async clear() {
      doc.off('update', onUpdate)
      closeSync(fd)
      rmSync(path, { force: true })
    },
  }
}

function writeRecord(fd: number, update: Uint8Array): void {
  const head = Buffer.alloc(4)
  head.writeUInt32BE(update.byteLength)
  writeSync(fd, Buffer.concat([head, update]))
}
