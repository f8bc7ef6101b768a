import type { Store } from '@hearth/engine'
import type { SecretBox } from '../webhooks/secret-box.ts'

/**
 * Seals again under the current key every bank connection's access that is not sealed under it
 * (under the previous key, or stored plain before a key was set), as webhook secrets are at
 * start, so a rotation of `HEARTH_WEBHOOK_SECRET_KEY` leaves nothing that needs the old key;
 * returns how many connections changed. One this server cannot open is left for its sync to
 * report (`openAccess`).
 */
export async function resealBankAccess(store: Store, box: SecretBox): Promise<number> {
  if (!box.encrypted) return 0
  const rows = await store.db
    .selectFrom('bank_connections')
    .select(['household_id', 'id', 'access_sealed'])
    .execute()
  let changed = 0
  for (const row of rows) {
    if (box.sealedNow(row.access_sealed)) continue
    let sealed: string
    try {
      sealed = box.seal(box.open(row.access_sealed))
    } catch {
      continue
    }
    await store.db
      .updateTable('bank_connections')
      .set({ access_sealed: sealed })
      .where('household_id', '=', row.household_id)
      .where('id', '=', row.id)
      .where('access_sealed', '=', row.access_sealed)
      .execute()
    changed++
  }
  return changed
}
