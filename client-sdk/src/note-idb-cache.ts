import { IndexeddbPersistence } from 'y-indexeddb'
import type * as Y from 'yjs'
import type { NoteCache } from './notes.ts'

/** A note's document in IndexedDB beside an `idb://name` store (`hearth-note:name:<note>`), via y-indexeddb. */
export function openNoteIdb(location: string, name: string, doc: Y.Doc): NoteCache | null {
  if (!location.startsWith('idb://') || typeof indexedDB === 'undefined') return null
  const persistence = new IndexeddbPersistence(`hearth-note:${location.slice('idb://'.length)}:${name}`, doc)
  return {
    whenLoaded: persistence.whenSynced.then(() => {}),
    close: () => persistence.destroy(),
    clear: () => persistence.clearData(),
  }
}
