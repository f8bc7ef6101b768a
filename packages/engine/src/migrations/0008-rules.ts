import type { Kysely } from 'kysely'

/** Filled in by its domain's issue. */
export async function up(_db: Kysely<unknown>): Promise<void> {}
