import { existsSync, renameSync } from 'node:fs'
import type { Store } from '@hearth/engine'
import { openChecked } from '../replica-check.ts'

/**
 * Opens a device's replica folder. One that fails to open (PostgreSQL refuses a torn control
 * file or log), or fails a quick check at open (every table read through, which meets a torn
 * page), is moved aside as `<folder>.damaged-<time>` and a new, empty replica is opened in its
 * place. The replica is only a cache of the server's rows plus this device's pending mutations,
 * and those live in the fsynced queue beside it: the new replica takes a snapshot from the
 * server and the queue replays onto it, so nothing the user did is lost. Answers the store and
 * the folder it moved aside, if any.
 */
export async function openReplicaFolder(
  folder: string,
  open: (folder: string) => Promise<Store>,
): Promise<{ store: Store; movedAside: string | null }> {
  try {
    return { store: await openChecked(() => open(folder)), movedAside: null }
  } catch (error) {
    if (!existsSync(folder)) throw error
    const aside = `${folder}.damaged-${new Date().toISOString().replaceAll(/[:.]/g, '-')}`
    renameSync(folder, aside)
    return { store: await open(folder), movedAside: aside }
  }
}
