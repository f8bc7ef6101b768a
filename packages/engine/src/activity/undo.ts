import { sql, type Transaction } from 'kysely'
import { currentActivityId } from '../changes/activity.ts'
import type { Database } from '../database.ts'
import { EngineError, notFound } from '../errors.ts'
import type { HouseholdContext } from '../mutator/context.ts'
import { defineMutator } from '../mutator/define.ts'
import type { Scope } from '../scopes.ts'
import { syncDb } from '../sync/tables.ts'
import { UndoActivityArgsSchema, UndoMutationArgsSchema } from './schema.ts'

/** Rows no undo restores: the household itself and its members have their own operations. */
const NOT_RESTORED = new Set(['households', 'memberships'])

/**
 * Running sums a mutator keeps on a row beside the rows they sum (an account's balances follow
 * its transactions). An undo moves them back by what the entry moved them, rather than to their
 * old value, and a later change to them alone does not stand in an undo's way.
 */
const RUNNING_SUMS: Record<string, readonly string[]> = {
  accounts: ['balance_cents', 'cleared_balance_cents'],
}

/** Columns an undo's check ignores: the write stamp, and a table's running sums. */
function unchecked(table: string): string[] {
  return ['updated_at', ...(RUNNING_SUMS[table] ?? [])]
}

/** What an undo answers: its own entry, and the entry it took back. */
export interface UndoResult {
  entryId: string
  undoneEntryId: string
  undoneOperation: string
  rowsRestored: number
}

/**
 * Takes back one activity entry by putting every row it changed back as it was before, keeping
 * each invariant the database holds (constraints, the deferred split-sum check) and recomputing
 * what triggers derive (the budget's monthly sums). Only when no later entry changed any of
 * those rows; the undo is an entry of its own, so undoing it again is a redo.
 */
export const undoActivity = defineMutator({
  audience: 'server',
  description:
    'Undoes an activity entry (your own last change unless one is named); undoing an undo redoes it.',
  scope: null,
  args: UndoActivityArgsSchema,
  async run(tx, args, ctx): Promise<UndoResult> {
    return undoEntry(tx, await findTarget(tx, args.entryId, ctx), ctx)
  },
})

/** What a device's undo of its own mutation answers: which mutation, and how many rows came back. */
export interface MutationUndoResult {
  undoneMutationId: number
  rowsRestored: number
}

/**
 * A device's undo of one of its own mutations, pending or confirmed, by the device's id of it
 * (docs/api/activity.md, Undo on a device). The same mutator runs in both places: on the device
 * it restores the rows from the images the device kept of its own mutations (`device_undo`,
 * `device_history`), offline too; on the server, when the push arrives, it undoes the mutation's
 * activity entry as `activity.undo` would, with the same checks. A refusal there (a later change
 * by someone else touched the rows) comes back as a rejected mutation the device rolls back.
 */
export const undoMutation = defineMutator({
  audience: 'device',
  description:
    'Undoes one of this device’s own changes by its mutation id, pending or confirmed, offline too; undoing an undo redoes it.',
  scope: null,
  args: UndoMutationArgsSchema,
  async run(tx, args, ctx): Promise<MutationUndoResult> {
    if (!ctx.clientId) {
      throw new EngineError(
        400,
        'DEVICE_REQUIRED',
        'Only a syncing device undoes a change by its mutation id.',
      )
    }
    const { rows } = await sql<{
      undo: string | null
    }>`select current_setting('hearth.undo', true) as undo`.execute(tx)
    if (rows[0]?.undo) {
      return { undoneMutationId: args.mutationId, rowsRestored: await undoOnDevice(tx, args.mutationId, ctx) }
    }
    const entry = await tx
      .selectFrom('activity')
      .select(['id', 'version', 'operation', 'scope', 'user_id'])
      .where('household_id', '=', ctx.householdId)
      .where('actor_kind', '=', 'device')
      .where('actor_ref', '=', ctx.clientId)
      .where('mutation_id', '=', args.mutationId)
      .executeTakeFirst()
    if (!entry) {
      throw new EngineError(
        409,
        'NOTHING_TO_UNDO',
        `The server holds no change of this device numbered ${args.mutationId}: it was refused, or its entry was trimmed.`,
      )
    }
    const { rowsRestored } = await undoEntry(tx, { ...entry, version: Number(entry.version) }, ctx)
    return { undoneMutationId: args.mutationId, rowsRestored }
  },
})

/** Undoes one entry on the server, after checking who may, from its stored row images. */
async function undoEntry(tx: Tx, target: Target, ctx: HouseholdContext): Promise<UndoResult> {
  if (target.user_id !== ctx.userId && ctx.role !== 'owner') {
    throw new EngineError(
      403,
      'NOT_YOUR_CHANGE',
      'Members undo their own changes; an owner may undo anyone’s.',
      {
        extra: { entryId: target.id },
      },
    )
  }
  if (target.scope && !ctx.scopes.includes(target.scope as Scope)) {
    throw new EngineError(
      403,
      'INSUFFICIENT_SCOPE',
      `Undoing ${target.operation} needs the scope ${target.scope}.`,
      {
        extra: { requiredScope: target.scope },
      },
    )
  }
  const changes = await tx
    .selectFrom('activity_changes')
    .select(['table_name', 'row_id', 'before', 'after'])
    .where('household_id', '=', ctx.householdId)
    .where('version', '=', target.version)
    .orderBy('seq', 'desc')
    .execute()
  if (changes.length === 0 || changes.some((c) => NOT_RESTORED.has(c.table_name))) {
    throw new EngineError(409, 'NOT_UNDOABLE', `${target.operation} changed nothing an undo can restore.`, {
      extra: { entryId: target.id },
    })
  }
  await refuseLaterChange(tx, ctx.householdId, target, changes)
  for (const change of changes) await restoreRow(tx, ctx, change)
  await sql`update activity set undone_by = current_setting('hearth.version')::bigint
    where household_id = ${ctx.householdId} and version = ${target.version}`.execute(tx)
  const entryId = (await currentActivityId(tx, ctx.householdId)) ?? ''
  return {
    entryId,
    undoneEntryId: target.id,
    undoneOperation: target.operation,
    rowsRestored: changes.length,
  }
}

/** One row image a device kept: which of its mutations wrote the row, in which order, and before. */
interface DeviceImage {
  mutation_id: number
  seq: number
  table_name: string
  row_id: string
  before: Record<string, unknown> | null
}

/**
 * The device's side of `activity.undoMutation`: the rows its mutation wrote go back to their
 * images from before it, newest write first, with the engine's own restore. What the mutation
 * left a row as is the image the device's next mutation of that row kept, or the row as it
 * stands; a row that no longer stands so (ignoring the write stamp and running sums) was changed
 * by a later mutation of this device, and the undo is refused naming it. A later change by
 * someone else only the server sees: it refuses there, and the device rolls the undo back.
 */
async function undoOnDevice(tx: Tx, mutationId: number, ctx: HouseholdContext): Promise<number> {
  const db = syncDb(tx)
  const own = [
    ...(await db
      .selectFrom('device_history')
      .select(['mutation_id', 'seq', 'table_name', 'row_id', 'before'])
      .where('mutation_id', '=', mutationId)
      .execute()),
    ...(await firstImages(tx, sql`mutation_id = ${mutationId}`)),
  ].map((i) => ({ ...i, mutation_id: Number(i.mutation_id), seq: Number(i.seq) }))
  if (own.length === 0) {
    throw new EngineError(
      409,
      'NOTHING_TO_UNDO',
      `This device keeps no change numbered ${mutationId}: it changed no row, was refused, or is older than the changes it keeps.`,
    )
  }
  if (own.some((i) => NOT_RESTORED.has(i.table_name))) {
    throw new EngineError(409, 'NOT_UNDOABLE', `Change ${mutationId} changed nothing an undo can restore.`)
  }
  const later = [
    ...(await db
      .selectFrom('device_history')
      .select(['mutation_id', 'seq', 'table_name', 'row_id', 'before'])
      .where('mutation_id', '>', mutationId)
      .execute()),
    ...(await firstImages(tx, sql`mutation_id > ${mutationId} and mutation_id <> ${ctx.mutationId ?? 0}`)),
  ].map((i) => ({ ...i, mutation_id: Number(i.mutation_id) }))
  const changes: Change[] = []
  for (const image of own.sort((a, b) => b.seq - a.seq)) {
    const next = later
      .filter((l) => l.table_name === image.table_name && l.row_id === image.row_id)
      .sort((a, b) => a.mutation_id - b.mutation_id)[0]
    const { rows } = await sql<{ row: Record<string, unknown> }>`select to_jsonb(t) as row
      from ${sql.table(image.table_name)} t where household_id = ${ctx.householdId} and id = ${image.row_id}`.execute(
      tx,
    )
    const current = rows[0]?.row ?? null
    const after = next ? next.before : current
    if (!sameImage(image.table_name, after, current)) {
      throw new EngineError(
        409,
        'UNDO_CONFLICT',
        `A later change of this device (mutation ${next?.mutation_id}) changed the ${image.table_name.replace(/_/g, ' ')} row ${image.row_id}; undo that first.`,
        { extra: { mutationId, laterMutationId: next?.mutation_id ?? null } },
      )
    }
    changes.push({ table_name: image.table_name, row_id: image.row_id, before: image.before, after })
  }
  for (const change of changes) await restoreRow(tx, ctx, change)
  return changes.length
}

/** Each row's first image per pending mutation (`device_undo` keeps one per statement). */
async function firstImages(tx: Tx, where: ReturnType<typeof sql>): Promise<DeviceImage[]> {
  const { rows } = await sql<DeviceImage>`
    select distinct on (mutation_id, table_name, row_id) mutation_id, seq, table_name, row_id, row as before
    from device_undo where ${where}
    order by mutation_id, table_name, row_id, seq`.execute(tx)
  return rows
}

/** Whether two images of a row are the same but for its write stamp and running sums. */
function sameImage(
  table: string,
  a: Record<string, unknown> | null,
  b: Record<string, unknown> | null,
): boolean {
  if (a === null || b === null) return a === b
  const ignored = new Set(unchecked(table))
  const keys = new Set([...Object.keys(a), ...Object.keys(b)].filter((k) => !ignored.has(k)))
  return [...keys].every((k) => JSON.stringify(a[k] ?? null) === JSON.stringify(b[k] ?? null))
}

type Tx = Transaction<Database>
type Change = {
  table_name: string
  row_id: string
  before: Record<string, unknown> | null
  after: Record<string, unknown> | null
}
type Target = { id: string; version: number; operation: string; scope: string | null; user_id: string }

/** The named entry, or the caller's newest change that is not an undo and was not undone. */
async function findTarget(tx: Tx, entryId: string | undefined, ctx: HouseholdContext): Promise<Target> {
  const base = tx
    .selectFrom('activity')
    .select(['id', 'version', 'operation', 'scope', 'user_id'])
    .where('household_id', '=', ctx.householdId)
  if (entryId) {
    const row = await base.where('id', '=', entryId).executeTakeFirst()
    if (!row) throw notFound('Activity entry', entryId)
    return { ...row, version: Number(row.version) }
  }
  const row = await base
    .where('user_id', '=', ctx.userId)
    .where('operation', 'not in', ['activity.undo', 'activity.undoMutation'])
    .where('undone_by', 'is', null)
    .where(({ exists, selectFrom }) =>
      exists(
        selectFrom('activity_changes as c')
          .select('c.version')
          .whereRef('c.household_id', '=', 'activity.household_id')
          .whereRef('c.version', '=', 'activity.version'),
      ),
    )
    .orderBy('version', 'desc')
    .limit(1)
    .executeTakeFirst()
  if (!row)
    throw new EngineError(409, 'NOTHING_TO_UNDO', 'You have no change left to undo in this household.')
  return { ...row, version: Number(row.version) }
}

/**
 * Refuses with 409 UNDO_CONFLICT when a row no longer stands as the entry left it (a later change
 * that was itself undone does not count: the row is back as the entry left it), naming the
 * latest later entry that changed the row.
 */
async function refuseLaterChange(
  tx: Tx,
  householdId: string,
  target: Target,
  changes: readonly Change[],
): Promise<void> {
  const byTable = new Map<string, Change[]>()
  for (const c of changes) byTable.set(c.table_name, [...(byTable.get(c.table_name) ?? []), c])
  for (const [table, rows] of byTable) {
    const images = JSON.stringify(rows.map((r) => ({ rowId: r.row_id, after: r.after })))
    const ignored = sql.val(unchecked(table))
    const { rows: moved } = await sql<{ row_id: string }>`
      select c ->> 'rowId' as row_id
      from jsonb_array_elements(${images}::jsonb) c
      left join ${sql.table(table)} t on t.household_id = ${householdId} and t.id = c ->> 'rowId'
      where case when jsonb_typeof(c -> 'after') = 'null' then t.id is not null
                 else t.id is null or (to_jsonb(t) - ${ignored}::text[]) is distinct from ((c -> 'after') - ${ignored}::text[]) end
      limit 1`.execute(tx)
    if (moved.length === 0) continue
    const rowId = moved[0]!.row_id
    const later = await tx
      .selectFrom('activity_changes as c')
      .innerJoin('activity as a', (j) =>
        j.onRef('a.household_id', '=', 'c.household_id').onRef('a.version', '=', 'c.version'),
      )
      .select(['a.id', 'a.operation', 'a.user_id'])
      .where('c.household_id', '=', householdId)
      .where('c.table_name', '=', table)
      .where('c.row_id', '=', rowId)
      .where('c.version', '>', target.version)
      .orderBy('c.version', 'desc')
      .limit(1)
      .executeTakeFirst()
    const what = `${table.replace(/_/g, ' ')} row ${rowId}`
    throw new EngineError(
      409,
      'UNDO_CONFLICT',
      later
        ? `A later change (${later.operation}, entry ${later.id}) changed the ${what}; undo that first.`
        : `The ${what} changed since; it cannot be put back.`,
      {
        extra: {
          entryId: target.id,
          laterEntryId: later?.id ?? null,
          laterOperation: later?.operation ?? null,
          laterMemberId: later?.user_id ?? null,
        },
      },
    )
  }
}

/**
 * Puts one row back as its before-image: a row the entry created is deleted, one it deleted is
 * inserted again, and an updated row gets back the columns that changed (its `updated_at`
 * becomes now, as any write's). A row another row still depends on refuses with UNDO_CONFLICT.
 */
async function restoreRow(
  tx: Tx,
  ctx: HouseholdContext,
  change: {
    table_name: string
    row_id: string
    before: Record<string, unknown> | null
    after: Record<string, unknown> | null
  },
): Promise<void> {
  const table = sql.table(change.table_name)
  const key = sql`household_id = ${ctx.householdId} and id = ${change.row_id}`
  try {
    if (!change.before) {
      await sql`delete from ${table} where ${key}`.execute(tx)
    } else if (!change.after) {
      const columns = Object.keys(change.before).map((c) => sql.id(c))
      await sql`insert into ${table} (${sql.join(columns)})
        select ${sql.join(columns)} from jsonb_populate_record(null::${table}, ${JSON.stringify(change.before)}::jsonb)`.execute(
        tx,
      )
    } else {
      const before = change.before
      const after = change.after
      const sums = RUNNING_SUMS[change.table_name] ?? []
      const differs = (c: string) => JSON.stringify(before[c]) !== JSON.stringify(after[c])
      const changed = Object.keys(before).filter(
        (c) => c !== 'household_id' && c !== 'id' && c !== 'updated_at' && !sums.includes(c) && differs(c),
      )
      const moved = sums.filter(differs)
      if (changed.length === 0 && moved.length === 0) return
      const sets = [
        ...(changed.length > 0
          ? [
              sql`(${sql.join(changed.map((c) => sql.id(c)))}) = (select ${sql.join(changed.map((c) => sql.id(c)))}
                from jsonb_populate_record(null::${table}, ${JSON.stringify(before)}::jsonb))`,
            ]
          : []),
        ...moved.map(
          (c) =>
            sql`${sql.id(c)} = ${sql.id(c)} + (${String(before[c])}::bigint - ${String(after[c])}::bigint)`,
        ),
        ...('updated_at' in before ? [sql`updated_at = ${ctx.now.toISOString()}::timestamptz`] : []),
      ]
      await sql`update ${table} set ${sql.join(sets)} where ${key}`.execute(tx)
    }
  } catch (error) {
    const code = (error as { code?: string }).code
    if (code !== '23503' && code !== '23505') throw error
    throw new EngineError(
      409,
      'UNDO_CONFLICT',
      `The ${change.table_name.replace(/_/g, ' ')} row ${change.row_id} cannot be put back: other rows now depend on it or took its place.`,
      { extra: { table: change.table_name, rowId: change.row_id } },
    )
  }
}
