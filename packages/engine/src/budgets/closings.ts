import { type Kysely, sql, type Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { MonthClosing } from './model.ts'

type Db = Kysely<Database> | Transaction<Database>

/**
 * Runs `read` in one repeatable-read snapshot (unless `db` is a transaction already), so what it
 * reads and the clock's version it keeps against describe one state of the store.
 */
export function inSnapshot<T>(db: Kysely<Database>, read: (tx: Transaction<Database>) => Promise<T>) {
  if (db.isTransaction) return read(db as Transaction<Database>)
  return db.transaction().setIsolationLevel('repeatable read').execute(read)
}

/** How a closing is stored: cents as decimal strings, categories as `[id, cents]` pairs. */
interface StoredClosing {
  carry: [string, string][]
  readyToAssign: string
  overspent: string
}

/** A stored closing, as the roll takes it. */
export function parseClosing(text: string): MonthClosing {
  const stored = JSON.parse(text) as StoredClosing
  return {
    carry: new Map(stored.carry.map(([id, cents]) => [id, BigInt(cents)])),
    readyToAssign: BigInt(stored.readyToAssign),
    overspent: BigInt(stored.overspent),
  }
}

/** A closing as it is stored. */
export function closingText(closing: MonthClosing): string {
  const stored: StoredClosing = {
    carry: [...closing.carry].map(([id, cents]) => [id, String(cents)]),
    readyToAssign: String(closing.readyToAssign),
    overspent: String(closing.overspent),
  }
  return JSON.stringify(stored)
}

/**
 * Keeps the closings a reader's roll computed, unless the household changed since it read
 * (`householdUnchanged`); a write that commits later forgets what it reaches through the
 * triggers. A closing kept already stays as it is.
 */
export async function keepClosings(
  db: Db,
  householdId: string,
  version: string | null,
  closings: ReadonlyMap<string, MonthClosing>,
): Promise<void> {
  if (closings.size === 0 || version === null) return
  const months = [...closings.keys()]
  const states = months.map((m) => closingText(closings.get(m)!))
  await sql`
    insert into budget_closings (household_id, month, state)
    select ${householdId}, k.month, k.state
    from unnest(${months}::text[], ${states}::text[]) as k(month, state)
    where ${householdUnchanged(householdId, version)}
    on conflict (household_id, month) do nothing`.execute(db)
}

/**
 * True while the household's clock still reads `version`. A write holds its household's clock
 * row from its first statement to its commit, so this waits for a write in flight (`for share`)
 * and then sees its new version: what a reader computed is kept only if no write came between.
 */
export function householdUnchanged(householdId: string, version: string) {
  return sql<boolean>`(select version::text from household_clock where household_id = ${householdId} for share) = ${version}`
}
