/**
 * A small app on @hearth/client: opens the key's default household in a folder, shows a sync
 * badge as the status changes, adds a tag (offline too), and lists the tags as they change.
 *
 *   npm start                                   # a server; it prints a key on first start
 *   npm run build                               # in this repository: the package's dist/
 *   HEARTH_KEY=hth_… node client-sdk/examples/household-tags.mjs "Groceries"
 *
 * HEARTH_URL (http://127.0.0.1:8787) and HEARTH_STORE (./hearth-example) are optional.
 */
import { createHearth, HearthError } from '@hearth/client'

const hearth = await createHearth({
  serverUrl: process.env.HEARTH_URL ?? 'http://127.0.0.1:8787',
  token: process.env.HEARTH_KEY ?? '',
  household: 'current',
  store: process.env.HEARTH_STORE ?? './hearth-example',
  deviceName: 'example script',
})

/** What an app would show in its corner: online, syncing, or offline since when. */
function badge({ state, pending, lastSyncedAt, error }) {
  if (error) return `sync stopped: ${error.message}`
  if (state === 'online') return 'synced'
  const since = lastSyncedAt ? `, last synced ${lastSyncedAt.toLocaleTimeString()}` : ''
  return `${state}: ${pending} change${pending === 1 ? '' : 's'} waiting${since}`
}
hearth.on('status', (status) => console.log(`[${badge(status)}]`))
hearth.on('rejected', ({ mutation, message }) =>
  console.log(`refused by the server: ${mutation.name}: ${message}`),
)

try {
  await hearth.sync.whenSynced({ timeoutMs: 10_000 })
} catch (error) {
  // A wrong key or a missing scope stops here at once; an unreachable server after the timeout.
  console.log(error instanceof HearthError ? `${error.code}: ${error.message}` : error)
}

const stop = hearth.watch('tags.list', {}, (tags) => console.log('tags:', tags.map((t) => t.name).join(', ')))
if (process.argv[2]) {
  // No id given: mutate fills it with a new ULID, the same one the server stores.
  const tag = await hearth.mutate.tags.create({ name: process.argv[2] })
  console.log(`added ${tag.name} (${tag.id})`)
}
await hearth.sync.whenSynced({ timeoutMs: 10_000 }).catch(() => {})
stop()
await hearth.close()
