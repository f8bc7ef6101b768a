import { IdArgsSchema, NoArgsSchema } from '../catalog/fields.ts'
import { defineQuery } from '../mutator/define.ts'
import { type BankConnection, toBankConnection } from './model.ts'
import { readConnection } from './mutators.ts'

/** The household's bank connections, oldest first, with their links; never a credential. */
export const listBankConnections = defineQuery({
  audience: 'server',
  description: "Lists the household's bank connections with their remote accounts and last sync.",
  scope: 'read:accounts',
  args: NoArgsSchema,
  async run(db, _args, ctx): Promise<BankConnection[]> {
    const rows = await db
      .selectFrom('bank_connections')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .orderBy('created_at')
      .orderBy('id')
      .execute()
    if (rows.length === 0) return []
    const links = await db
      .selectFrom('bank_links')
      .selectAll()
      .where('household_id', '=', ctx.householdId)
      .orderBy('institution')
      .orderBy('name')
      .orderBy('remote_id')
      .execute()
    return rows.map((r) =>
      toBankConnection(
        r,
        links.filter((l) => l.connection_id === r.id),
      ),
    )
  },
})

/** One connection with its links and last sync. */
export const getBankConnection = defineQuery({
  audience: 'server',
  description: 'Reads one bank connection with its remote accounts and last sync.',
  scope: 'read:accounts',
  args: IdArgsSchema,
  async run(db, args, ctx): Promise<BankConnection> {
    return readConnection(db as never, ctx.householdId, args.id)
  },
})
