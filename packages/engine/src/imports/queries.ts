import { notFound } from '../errors.ts'
import { requireAccount } from '../ledger/accounts/lookups.ts'
import { defineMutator, defineQuery } from '../mutator/define.ts'
import { keepMapping, savedMapping } from './commit.ts'
import { type ImportBatch, toImportBatch } from './model.ts'
import type { CsvMapping } from './parse/csv.ts'
import { type ImportPlan, planImport } from './plan.ts'
import {
  ImportIdArgsSchema,
  ListImportsArgsSchema,
  PreviewImportArgsSchema,
  SaveImportMappingArgsSchema,
} from './schema.ts'

/**
 * Plans a bank file against an account and changes nothing: each row new, duplicate, matched,
 * ambiguous or refused (with its line and reason), the counts, the file's ledger balance and a
 * digest a commit can hold the plan to.
 */
export const previewImport = defineQuery({
  audience: 'device',
  description:
    'Plans a bank file against an account without changing anything: each row new, duplicate, matched, ambiguous or refused with a reason.',
  scope: 'read:transactions',
  cost: 'expensive',
  args: PreviewImportArgsSchema,
  async run(db, args, ctx): Promise<ImportPlan> {
    const mapping =
      args.format === 'csv'
        ? (args.mapping ?? (await savedMapping(db, ctx.householdId, args.accountId)))
        : undefined
    return (await planImport(db, ctx.householdId, args.accountId, { ...args, mapping })).plan
  },
})

/** The household's import batches, newest first; optionally one account's. */
export const listImports = defineQuery({
  audience: 'device',
  description: "The household's import batches, newest first; optionally one account's.",
  scope: 'read:transactions',
  args: ListImportsArgsSchema,
  async run(db, args, ctx): Promise<{ items: ImportBatch[] }> {
    let query = db.selectFrom('import_batches').selectAll().where('household_id', '=', ctx.householdId)
    if (args.accountId !== undefined) query = query.where('account_id', '=', args.accountId)
    const rows = await query.orderBy('created_at', 'desc').orderBy('id', 'desc').limit(500).execute()
    return { items: rows.map(toImportBatch) }
  },
})

/** One import batch. */
export const getImport = defineQuery({
  audience: 'device',
  description: 'One import batch: what it created and matched, and whether it was undone.',
  scope: 'read:transactions',
  args: ImportIdArgsSchema,
  async run(db, args, ctx): Promise<ImportBatch> {
    const row = await db
      .selectFrom('import_batches')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .executeTakeFirst()
    if (!row) throw notFound('Import', args.id)
    return toImportBatch(row)
  },
})

/** An account's saved CSV mapping; 404 when it has none. */
export const getImportMapping = defineQuery({
  audience: 'device',
  description: "An account's saved CSV import mapping.",
  scope: 'read:transactions',
  args: ImportIdArgsSchema,
  async run(db, args, ctx): Promise<{ accountId: string; mapping: CsvMapping }> {
    await requireAccount(db, ctx.householdId, args.id)
    const mapping = await savedMapping(db, ctx.householdId, args.id)
    if (!mapping) throw notFound('Import mapping', args.id)
    return { accountId: args.id, mapping }
  },
})

/** Saves the CSV mapping an account's next files use when they bring none. */
export const saveImportMapping = defineMutator({
  audience: 'device',
  description: "Saves the CSV mapping an account's next imports use when they bring none.",
  scope: 'write:transactions',
  args: SaveImportMappingArgsSchema,
  async run(tx, args, ctx): Promise<{ accountId: string; mapping: CsvMapping }> {
    await requireAccount(tx, ctx.householdId, args.id)
    await keepMapping(tx, ctx.householdId, args.id, args.mapping, ctx.now)
    return { accountId: args.id, mapping: args.mapping }
  },
})
