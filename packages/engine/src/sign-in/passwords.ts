import type { Kysely, Transaction } from 'kysely'
import type { Database } from '../database.ts'
import type { ActorContext } from '../mutator/context.ts'
import { defineUserMutator } from '../mutator/define.ts'
import { SetPasswordArgsSchema } from './schema.ts'
import { revokeSessions } from './sessions.ts'

/** Sets the acting user's password hash, in place of any they had. */
export async function storePassword(
  tx: Transaction<Database>,
  hash: string,
  ctx: ActorContext,
): Promise<void> {
  await tx
    .insertInto('passwords')
    .values({ user_id: ctx.userId, hash, created_at: ctx.now, updated_at: ctx.now })
    .onConflict((oc) => oc.column('user_id').doUpdateSet({ hash, updated_at: ctx.now }))
    .execute()
}

/**
 * Sets the acting user's password and ends every other session of theirs, so a password that
 * leaked stops working everywhere at once; the server checked the current password first.
 */
export const setPassword = defineUserMutator({
  audience: 'server',
  description: 'Sets your password; every other session of yours ends.',
  scope: 'write:profile',
  args: SetPasswordArgsSchema,
  async run(tx, args, ctx) {
    await storePassword(tx, args.hash, ctx)
    const ended = await revokeSessions(tx, ctx, { except: args.keepSessionId ?? null })
    return { sessionsEnded: ended }
  },
})

/** A user found by email for signing in (compared case-insensitively), with their password hash if any. */
export async function findSignInUser(
  db: Kysely<Database>,
  email: string,
): Promise<{ userId: string; hash: string | null; emailVerified: boolean } | null> {
  const row = await db
    .selectFrom('users as u')
    .leftJoin('passwords as p', 'p.user_id', 'u.id')
    .select(['u.id', 'p.hash', 'u.email_verified_at'])
    .where((eb) => eb(eb.fn('lower', ['u.email']), '=', email.toLowerCase()))
    .executeTakeFirst()
  return row ? { userId: row.id, hash: row.hash, emailVerified: row.email_verified_at !== null } : null
}

/** A user's password hash, or null when they have none. */
export async function passwordHashOf(db: Kysely<Database>, userId: string): Promise<string | null> {
  const row = await db.selectFrom('passwords').select('hash').where('user_id', '=', userId).executeTakeFirst()
  return row?.hash ?? null
}
