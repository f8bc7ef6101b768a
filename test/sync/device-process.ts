/**
 * A device in a process of its own, for the kill test: it creates tags one after another and
 * prints `acked <n> <tagId>` as each call returns, until it is killed. After HEARTH_OFFLINE_AFTER
 * tags it goes offline, so the rest pile up in its queue.
 */
import { createHearth } from '@hearth/client'
import { ulid } from 'ulidx'

const { HEARTH_SERVER_URL, HEARTH_TOKEN, HEARTH_HOUSEHOLD, HEARTH_STORE, HEARTH_OFFLINE_AFTER } = process.env
const device = await createHearth({
  serverUrl: HEARTH_SERVER_URL!,
  token: HEARTH_TOKEN!,
  household: HEARTH_HOUSEHOLD!,
  store: HEARTH_STORE!,
  reconnectMinMs: 20,
})
await device.sync.whenSynced()
process.stdout.write('ready\n')
for (let n = 0; ; n++) {
  if (n === Number(HEARTH_OFFLINE_AFTER ?? Number.POSITIVE_INFINITY)) {
    // The first ones reach the server before the device goes offline, however slow the machine.
    await device.sync.whenSynced()
    await device.sync.disconnect()
  }
  const id = ulid()
  // Named after its id: a process started again on the same folder counts from 0 again, and a
  // second "Tag 0" would be refused as a name taken, ending that process.
  await device.mutate.tags.create({ id, name: `Tag ${n} ${id}` })
  process.stdout.write(`acked ${n} ${id}\n`)
}
