import type { Kysely } from 'kysely'
import { z } from 'zod'
import type { Database } from '../database.ts'
import { conflict, notFound } from '../errors.ts'
import { defineUserMutator, defineUserQuery } from '../mutator/define.ts'
import { LinkOidcIdentityArgsSchema, OidcIssuerArgsSchema } from './schema.ts'

/** A person's linked OpenID Connect identity, as their settings show it. */
export interface OidcIdentity {
  issuer: string
  email: string | null
  createdAt: string
  lastUsedAt: string | null
}

/**
 * Links an identity at a provider to the acting user, once the server has verified it (a code
 * flow it ran): one identity signs in one person, and a person has one identity per provider.
 */
export const linkOidcIdentity = defineUserMutator({
  audience: 'server',
  description: 'Links your account at the OpenID Connect provider, so it signs you in.',
  scope: 'write:profile',
  args: LinkOidcIdentityArgsSchema,
  async run(tx, args, ctx): Promise<OidcIdentity> {
    const taken = await tx
      .selectFrom('oidc_identities')
      .select('user_id')
      .where('issuer', '=', args.issuer)
      .where('subject', '=', args.subject)
      .executeTakeFirst()
    if (taken && taken.user_id !== ctx.userId) {
      throw conflict('IDENTITY_TAKEN', 'This account at the provider already signs in another person.')
    }
    const earlier = await tx
      .selectFrom('oidc_identities')
      .select('subject')
      .where('user_id', '=', ctx.userId)
      .where('issuer', '=', args.issuer)
      .executeTakeFirst()
    if (earlier && earlier.subject !== args.subject && !args.replace) {
      throw conflict('IDENTITY_TAKEN', 'Another account at this provider already signs you in.')
    }
    // One identity per provider: an explicit link replaces the earlier one.
    await tx
      .deleteFrom('oidc_identities')
      .where('user_id', '=', ctx.userId)
      .where('issuer', '=', args.issuer)
      .execute()
    const row = await tx
      .insertInto('oidc_identities')
      .values({
        issuer: args.issuer,
        subject: args.subject,
        user_id: ctx.userId,
        email: args.email ?? null,
        created_at: ctx.now,
        last_used_at: ctx.now,
      })
      .returningAll()
      .executeTakeFirstOrThrow()
    return toIdentity(row)
  },
})

/** Unlinks the acting user's identity at a provider; they sign in another way from then on. */
export const unlinkOidcIdentity = defineUserMutator({
  audience: 'server',
  description: 'Unlinks your account at the OpenID Connect provider.',
  scope: 'write:profile',
  args: OidcIssuerArgsSchema,
  async run(tx, args, ctx) {
    const result = await tx
      .deleteFrom('oidc_identities')
      .where('user_id', '=', ctx.userId)
      .where('issuer', '=', args.issuer)
      .executeTakeFirst()
    if (Number(result.numDeletedRows) === 0) throw notFound('OpenID identity')
    return { issuer: args.issuer }
  },
})

/** The acting user's linked identities. */
export const listOidcIdentities = defineUserQuery({
  audience: 'server',
  description: 'Your accounts at OpenID Connect providers that sign you in.',
  scope: 'read:profile',
  args: z.strictObject({}),
  async run(db, _args, ctx) {
    const rows = await db
      .selectFrom('oidc_identities')
      .selectAll()
      .where('user_id', '=', ctx.userId)
      .orderBy('created_at')
      .execute()
    return rows.map(toIdentity)
  },
})

/** The person an identity at a provider signs in, recording its use; null when none is linked. */
export async function oidcIdentityUser(
  db: Kysely<Database>,
  issuer: string,
  subject: string,
  now: Date,
): Promise<string | null> {
  const row = await db
    .updateTable('oidc_identities')
    .set({ last_used_at: now })
    .where('issuer', '=', issuer)
    .where('subject', '=', subject)
    .returning('user_id')
    .executeTakeFirst()
  return row?.user_id ?? null
}

function toIdentity(row: {
  issuer: string
  email: string | null
  created_at: Date
  last_used_at: Date | null
}): OidcIdentity {
  return {
    issuer: row.issuer,
    email: row.email,
    createdAt: row.created_at.toISOString(),
    lastUsedAt: row.last_used_at?.toISOString() ?? null,
  }
}
