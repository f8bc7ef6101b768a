import { type Kysely, sql } from 'kysely'

/**
 * The household clock announces each new version (`pg_notify` on `hearth_household`) so that
 * every server instance wakes its devices. A device's replica has nobody listening, yet paid a
 * PL/pgSQL call for it on every local write: about 0.16 ms of a 0.27 ms clock tick when the
 * device had been idle (bench: a tick's statement alone). A replica sets `hearth.replica` for
 * its session when it opens (client-sdk `Replica.open`), and the trigger's WHEN clause, which
 * PostgreSQL evaluates without calling the function, skips it there.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`drop trigger household_clock_notify on household_clock`.execute(db)
  await sql`
    create trigger household_clock_notify after insert or update on household_clock
    for each row when (current_setting('hearth.replica', true) is distinct from 'on')
    execute function hearth_notify_household()`.execute(db)
}
