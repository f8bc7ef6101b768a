import { type Kysely, sql } from 'kysely'

/**
 * Undo on a device, offline (issue 43). A device's own mutation can be taken back by a mutation
 * of its own (`activity.undoMutation`), which names it by its mutation id: the server finds its
 * activity entry by the device and that id (`activity.mutation_id`), and the device restores
 * the rows from images it keeps. A pending mutation's images are `device_undo`'s; once the server
 * confirms it they move to `device_history` with the row as the confirmed state left it, for the
 * device's last 200 confirmed mutations. Both tables exist in every store; a server leaves
 * `device_history` empty, as it does `device_undo`.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await sql`alter table activity add column mutation_id bigint`.execute(db)
  await sql`create index activity_device_mutation_idx on activity (household_id, actor_ref, mutation_id)
    where mutation_id is not null`.execute(db)
  await sql`
    create table device_history (
      mutation_id bigint not null,
      seq bigint not null,
      table_name text not null,
      household_id text not null,
      row_id text not null,
      before jsonb,
      primary key (mutation_id, table_name, row_id)
    )`.execute(db)
}
