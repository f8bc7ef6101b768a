import { sharedStore } from '@hearth/test/store'
import { sql } from 'kysely'
import { describe, expect, it } from 'vitest'
import { gate } from '../migrations/0019-server-rows-gate.ts'

/**
 * A device applies a small delta in origin mode with `hearth.server_rows` on (migration 0019):
 * every trigger that would fire there, other than the change-log trigger (which has nothing to
 * log on a device outside a local mutation), must skip the server's rows, or the device would
 * derive rows the server already sent (budget activity) or check rows the server checked.
 */
describe('the server-rows gate', () => {
  it('is on every origin-mode trigger of a synced table but the change-log trigger', async () => {
    const { db } = await sharedStore()
    const { rows } = await sql<{ table: string; trigger: string; def: string }>`
      select c.relname as table, t.tgname as trigger, pg_get_triggerdef(t.oid) as def
      from pg_trigger t
      join pg_class c on c.oid = t.tgrelid
      join pg_proc p on p.oid = t.tgfoid
      where not t.tgisinternal and t.tgenabled = 'O' and p.proname <> 'hearth_log_changes'
        and c.relname in (select hearth_synced_tables())
      order by 1, 2`.execute(db)
    expect(rows.length).toBeGreaterThanOrEqual(8)
    for (const r of rows) {
      expect(r.def, `${r.table}.${r.trigger}`).toContain(
        "current_setting('hearth.server_rows'::text, true) IS DISTINCT FROM 'on'::text",
      )
    }
  })

  it('adds itself to a trigger with no WHEN clause and to one with its own', () => {
    expect(gate('CREATE TRIGGER a AFTER INSERT ON public.t FOR EACH STATEMENT EXECUTE FUNCTION f()')).toBe(
      "CREATE TRIGGER a AFTER INSERT ON public.t FOR EACH STATEMENT WHEN (current_setting('hearth.server_rows', true) IS DISTINCT FROM 'on') EXECUTE FUNCTION f()",
    )
    expect(
      gate(
        'CREATE CONSTRAINT TRIGGER b AFTER UPDATE OF n ON public.t DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((old.n IS DISTINCT FROM new.n)) EXECUTE FUNCTION f()',
      ),
    ).toBe(
      "CREATE CONSTRAINT TRIGGER b AFTER UPDATE OF n ON public.t DEFERRABLE INITIALLY DEFERRED FOR EACH ROW WHEN ((current_setting('hearth.server_rows', true) IS DISTINCT FROM 'on') AND ((old.n IS DISTINCT FROM new.n))) EXECUTE FUNCTION f()",
    )
  })

  it('skips the trigger while the setting is on, and fires it as before once it is off', async () => {
    const { db } = await sharedStore()
    let skipped = false
    await expect(
      db.transaction().execute(async (tx) => {
        await sql`create temporary table gate_probe (n int) on commit drop`.execute(tx)
        await sql`create function pg_temp.gate_refuse() returns trigger language plpgsql as $$
          begin raise exception 'fired'; end $$`.execute(tx)
        const trigger =
          'CREATE TRIGGER g AFTER INSERT ON gate_probe FOR EACH STATEMENT EXECUTE FUNCTION pg_temp.gate_refuse()'
        await sql.raw(gate(trigger)).execute(tx)
        await sql`select set_config('hearth.server_rows', 'on', true)`.execute(tx)
        await sql`insert into gate_probe values (1)`.execute(tx)
        skipped = true
        await sql`select set_config('hearth.server_rows', '', true)`.execute(tx)
        await sql`insert into gate_probe values (2)`.execute(tx)
      }),
    ).rejects.toThrow('fired')
    expect(skipped).toBe(true)
  })
})
