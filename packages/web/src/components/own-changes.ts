import type { Hearth } from '@hearth/client'

/** One change this app made here, which Ctrl/Cmd+Z or the toast's Undo takes back. */
export interface OwnChange {
  id: number
  name: string
  /** When it was made (ms since the epoch), so a toast mounted later knows if it is still news. */
  at: number
}

/** The newest changes kept for Ctrl/Cmd+Z; older ones are undone from the Activity screen. */
const KEPT = 100

/**
 * The changes made in this app on one replica, newest last, recorded from the moment the replica
 * opens. The toast mounts only once the app has rendered the open replica, and a change made while
 * it opened (an assignment typed into the budget the server showed) commits as soon as the rows are
 * in, which can be before the toast's effect subscribes; so the record lives here, started by the
 * app when the replica opens, not in the toast.
 */
export interface OwnChanges {
  readonly list: OwnChange[]
  /** Takes a change out of the record (it is being undone). */
  forget(id: number): void
  /** Called with each new change; returns the unsubscribe. */
  onChange(listener: (change: OwnChange) => void): () => void
}

const records = new WeakMap<Hearth, OwnChanges>()

/** This replica's record of own changes, started at the first call. */
export function ownChanges(hearth: Hearth): OwnChanges {
  const known = records.get(hearth)
  if (known) return known
  const list: OwnChange[] = []
  const listeners = new Set<(change: OwnChange) => void>()
  hearth.on('change', (e) => {
    if (e.source !== 'local' || !e.mutation || e.mutation.name === 'activity.undoMutation') return
    const change = { id: e.mutation.id, name: e.mutation.name, at: Date.now() }
    list.push(change)
    if (list.length > KEPT) list.shift()
    for (const listener of listeners) listener(change)
  })
  const record: OwnChanges = {
    list,
    forget(id) {
      const at = list.findIndex((c) => c.id === id)
      if (at >= 0) list.splice(at, 1)
    },
    onChange(listener) {
      listeners.add(listener)
      return () => listeners.delete(listener)
    },
  }
  records.set(hearth, record)
  return record
}
