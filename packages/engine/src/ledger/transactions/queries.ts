import { defineQuery } from '../../mutator/define.ts'
import type { Transaction } from './model.ts'
import { TransactionIdArgsSchema } from './schema.ts'
import { hydrate, requireTransaction } from './writes.ts'

/** One live row with its splits, tag ids and flag ids. */
export const getTransaction = defineQuery({
  audience: 'device',
  description: 'One live row with its splits, tag ids and flag ids.',
  scope: 'read:transactions',
  args: TransactionIdArgsSchema,
  async run(db, args, ctx): Promise<Transaction> {
    const row = await requireTransaction(db, ctx.householdId, args.id)
    const [transaction] = await hydrate(db, ctx.householdId, [row])
    return transaction!
  },
})
