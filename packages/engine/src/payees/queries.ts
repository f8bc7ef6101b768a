import { type Kysely, sql, type Transaction } from 'kysely'
import { NoArgsSchema } from '../catalog/fields.ts'
import { requirePayee } from '../catalog/lookups.ts'
import { normalizePayeeName, type Payee, toPayee } from '../catalog/model.ts'
import type { Database } from '../database.ts'
import { notFound } from '../errors.ts'
import { defineQuery } from '../mutator/define.ts'
import { likeEscape, type PayeeAlias, type PayeeMerge, toPayeeAlias, toPayeeMerge } from './model.ts'
import { cosineSimilarity, DUPLICATE_THRESHOLD, duplicateGroups, nameVector } from './name-vector.ts'
import { PayeeIdArgsSchema, PayeePageArgsSchema } from './schema.ts'

type Db = Kysely<Database> | Transaction<Database>

// Names sort by code point (`collate "C"`), so a device's PGlite and a server's PostgreSQL,
// whatever its locale, answer pages and groups in the same order.

/** One page of payees, with how many match in all. */
export interface PayeePage {
  items: Payee[]
  page: number
  pageSize: number
  total: number
  pageCount: number
}

/** A page of live payees by name, filtered by default category or its absence and a search text. */
export const payeePage = defineQuery({
  audience: 'device',
  description: 'One page of live payees by name, filtered by default category, segment and a search text.',
  scope: 'read:payees',
  args: PayeePageArgsSchema,
  async run(db, args, ctx): Promise<PayeePage> {
    let query = db
      .selectFrom('payees as p')
      .where('p.household_id', '=', ctx.householdId)
      .where('p.deleted_at', 'is', null)
    if (args.categoryId !== undefined) query = query.where('p.category_id', '=', args.categoryId)
    if (args.segment === 'noCategory') query = query.where('p.category_id', 'is', null)
    const q = args.q === undefined ? '' : normalizePayeeName(args.q)
    if (q !== '') {
      const pattern = `%${likeEscape(q)}%`
      query = query.where((eb) =>
        eb.or([
          eb('p.normalized_name', 'like', pattern),
          eb.exists(
            eb
              .selectFrom('payee_aliases as a')
              .select(sql.lit(1).as('one'))
              .whereRef('a.household_id', '=', 'p.household_id')
              .whereRef('a.payee_id', '=', 'p.id')
              .where('a.deleted_at', 'is', null)
              .where('a.normalized_name', 'like', pattern),
          ),
        ]),
      )
    }
    const { total } = await query
      .select((eb) => eb.fn.countAll<string | number>().as('total'))
      .executeTakeFirstOrThrow()
    const direction = args.sort === 'nameDesc' ? 'desc' : 'asc'
    const rows = await query
      .selectAll('p')
      .orderBy(sql`p.normalized_name collate "C"`, direction)
      .orderBy('p.id', direction)
      .limit(args.pageSize)
      .offset((args.page - 1) * args.pageSize)
      .execute()
    const count = Number(total)
    return {
      items: rows.map(toPayee),
      page: args.page,
      pageSize: args.pageSize,
      total: count,
      pageCount: Math.ceil(count / args.pageSize),
    }
  },
})

/** The live aliases of a payee, in one order. */
export async function aliasesOf(db: Db, householdId: string, payeeId: string): Promise<PayeeAlias[]> {
  const rows = await db
    .selectFrom('payee_aliases')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('payee_id', '=', payeeId)
    .where('deleted_at', 'is', null)
    .orderBy(sql`normalized_name collate "C"`)
    .orderBy('id')
    .execute()
  return rows.map(toPayeeAlias)
}

/** The live aliases of a live payee, by normalized name, then id. */
export const listPayeeAliases = defineQuery({
  audience: 'device',
  description: 'The live aliases of a live payee, by normalized name, then id.',
  scope: 'read:payees',
  args: PayeeIdArgsSchema,
  async run(db, args, ctx): Promise<{ items: PayeeAlias[] }> {
    await requirePayee(db, ctx.householdId, args.id)
    return { items: await aliasesOf(db, ctx.householdId, args.id) }
  },
})

/** The merges a payee took part in, as source or target, newest first. */
export const listPayeeMerges = defineQuery({
  audience: 'device',
  description: 'The merges a payee took part in, as source or target, newest first; merged-away payees too.',
  scope: 'read:payees',
  args: PayeeIdArgsSchema,
  async run(db, args, ctx): Promise<{ items: PayeeMerge[] }> {
    const payee = await db
      .selectFrom('payees')
      .select('id')
      .where('household_id', '=', ctx.householdId)
      .where('id', '=', args.id)
      .executeTakeFirst()
    if (!payee) throw notFound('Payee', args.id)
    const rows = await db
      .selectFrom('payee_merges')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .where((eb) => eb.or([eb('source_payee_id', '=', args.id), eb('target_payee_id', '=', args.id)]))
      .orderBy('created_at', 'desc')
      .orderBy('id', 'desc')
      .execute()
    return { items: rows.map(toPayeeMerge) }
  },
})

/** A payee near another, with how near. */
export interface DedupeCandidate {
  payee: Payee
  similarity: number
}

async function livePayees(db: Db, householdId: string) {
  return db
    .selectFrom('payees')
    .selectAll()
    .where('household_id', '=', householdId)
    .where('deleted_at', 'is', null)
    .orderBy(sql`normalized_name collate "C"`)
    .orderBy('id')
    .execute()
}

/** Clusters of live payees whose names are near-duplicates (cosine similarity at least 0.9). */
export const payeeDuplicateGroups = defineQuery({
  audience: 'device',
  description: 'Clusters of live payees whose names are near-duplicates (cosine similarity at least 0.9).',
  scope: 'read:payees',
  args: NoArgsSchema,
  async run(db, _args, ctx): Promise<{ items: { payees: Payee[] }[]; threshold: number }> {
    const rows = await livePayees(db, ctx.householdId)
    const byId = new Map(rows.map((r) => [r.id, r]))
    const groups = duplicateGroups(rows.map((r) => ({ id: r.id, name: r.normalized_name })))
    return {
      items: groups.map((ids) => ({ payees: ids.map((id) => toPayee(byId.get(id)!)) })),
      threshold: DUPLICATE_THRESHOLD,
    }
  },
})

/** Live payees whose names are near-duplicates of this one's, most similar first. */
export const payeeDedupeCandidates = defineQuery({
  audience: 'device',
  description: "Live payees whose names are near-duplicates of this one's (cosine similarity at least 0.9).",
  scope: 'read:payees',
  args: PayeeIdArgsSchema,
  async run(db, args, ctx): Promise<{ items: DedupeCandidate[]; threshold: number }> {
    const self = await requirePayee(db, ctx.householdId, args.id)
    const mine = nameVector(self.normalized_name)
    const items: DedupeCandidate[] = []
    for (const row of await livePayees(db, ctx.householdId)) {
      if (row.id === self.id) continue
      const similarity = cosineSimilarity(mine, nameVector(row.normalized_name))
      if (similarity >= DUPLICATE_THRESHOLD) items.push({ payee: toPayee(row), similarity })
    }
    // Stable sort: ties stay by normalized name, then id.
    items.sort((a, b) => b.similarity - a.similarity)
    return { items, threshold: DUPLICATE_THRESHOLD }
  },
})

/** A category the household refused for a payee's suggestions. */
export interface RejectedCategory {
  categoryId: string
  createdAt: string
}

/** The categories never suggested again for a payee, because a suggestion of them was rejected. */
export const listRejectedCategories = defineQuery({
  audience: 'device',
  description: 'The categories never suggested again for a payee, because a suggestion of them was rejected.',
  scope: 'read:payees',
  args: PayeeIdArgsSchema,
  async run(db, args, ctx): Promise<{ items: RejectedCategory[] }> {
    await requirePayee(db, ctx.householdId, args.id)
    const rows = await db
      .selectFrom('payee_category_rejections')
      .select(['category_id', 'created_at'])
      .where('household_id', '=', ctx.householdId)
      .where('payee_id', '=', args.id)
      .orderBy('created_at')
      .orderBy('category_id')
      .execute()
    return { items: rows.map((r) => ({ categoryId: r.category_id, createdAt: r.created_at.toISOString() })) }
  },
})
