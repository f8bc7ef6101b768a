import type { Store } from '@hearth/engine'
import type { SecretBox } from './secret-box.ts'

/**
 * Seals again under the current key every webhook secret that is not sealed under it (one sealed
 * under the previous key, or stored plain before a key was set), so a rotation of
 * `HEARTH_WEBHOOK_SECRET_KEY` leaves nothing that needs the old key; returns how many rows changed.
 * The secrets themselves stay the same, so receivers notice nothing. Run at start, before any
 * delivery; two instances starting at once write the same secrets, each sealed validly.
 */
export async function resealWebhookSecrets(store: Store, box: SecretBox): Promise<number> {
  if (!box.encrypted) return 0
  const rows = await store.db
    .selectFrom('webhook_subscriptions')
    .select(['household_id', 'id', 'secret_sealed', 'previous_secret_sealed'])
    .execute()
  let changed = 0
  for (const row of rows) {
    const stale = (sealed: string | null) => sealed !== null && !box.sealedNow(sealed)
    if (!stale(row.secret_sealed) && !stale(row.previous_secret_sealed)) continue
    let secret: string
    let previous: string | null
    try {
      secret = stale(row.secret_sealed) ? box.seal(box.open(row.secret_sealed)) : row.secret_sealed
      previous =
        row.previous_secret_sealed !== null && stale(row.previous_secret_sealed)
          ? box.seal(box.open(row.previous_secret_sealed))
          : row.previous_secret_sealed
    } catch {
      // Sealed under a key this server does not hold: its deliveries fail (and say why) until
      // the key is back or its secret is rotated; it is no reason not to start.
      continue
    }
    await store.db
      .updateTable('webhook_subscriptions')
      .set({ secret_sealed: secret, previous_secret_sealed: previous })
      // Only if unchanged since read: a rotation meanwhile sealed its own under the current key.
      .where('household_id', '=', row.household_id)
      .where('id', '=', row.id)
      .where('secret_sealed', '=', row.secret_sealed)
      .execute()
    changed++
  }
  return changed
}
