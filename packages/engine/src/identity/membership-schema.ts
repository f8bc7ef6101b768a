import { z } from 'zod'
import { ROLES } from '../scopes.ts'
import { NameSchema, TimeZoneSchema, UlidSchema } from '../shared/schema.ts'
import { CreateSessionArgsSchema, PasswordHashSchema, RedeemPasskeyArgsSchema } from '../sign-in/schema.ts'
import { INVITATION_ROLES } from './invitation-presets.ts'
import { ScopeListSchema } from './schema.ts'

/** How long an invitation lasts unless its owner says otherwise, and the longest it may. */
export const INVITATION_DEFAULT_DAYS = 7
export const INVITATION_MAX_DAYS = 30

const KeyHashSchema = z.string().regex(/^[0-9a-f]{64}$/)

export const CreateInvitationArgsSchema = z.strictObject({
  id: UlidSchema,
  /** A role, or the `viewer` preset (a member whose key only reads); see invitation-presets.ts. */
  role: z.enum(INVITATION_ROLES).default('member'),
  /** The key's scopes; left out, the role's preset less what the inviter does not hold. */
  scopes: ScopeListSchema.optional(),
  /** When the code stops working; 7 days from now when left out, at most 30 days ahead. */
  expiresAt: z.iso.datetime({ offset: true }).optional(),
  note: z.string().trim().max(200).nullish(),
  /** SHA-256 of the code, hex; the code itself never reaches the engine. */
  codeHash: KeyHashSchema,
  prefix: z.string().min(4).max(16),
})
export type CreateInvitationArgs = z.output<typeof CreateInvitationArgsSchema>

export const InvitationIdArgsSchema = z.strictObject({ id: z.string().min(1) })

export const RedeemInvitationArgsSchema = z.strictObject({
  codeHash: KeyHashSchema,
  /** The user to create, when the redeemer has no user yet; absent, the acting user joins. */
  newUser: z
    .strictObject({
      id: UlidSchema,
      name: NameSchema,
      email: z.email().max(320).nullish(),
      timeZone: TimeZoneSchema.nullish(),
      /** The new person's password hash, when they join by signing in rather than with a key. */
      passwordHash: PasswordHashSchema.optional(),
      /** Or the passkey made for the invitation, in place of a password (with a session). */
      passkey: RedeemPasskeyArgsSchema.optional(),
    })
    .optional(),
  /** A session for the browser that redeems, in place of a key (the app's sign-up). */
  session: CreateSessionArgsSchema.omit({ replaces: true }).optional(),
  key: z
    .strictObject({
      id: UlidSchema,
      name: NameSchema,
      keyHash: KeyHashSchema,
      prefix: z.string().min(4).max(16),
    })
    .optional(),
})
export type RedeemInvitationArgs = z.output<typeof RedeemInvitationArgsSchema>

export const UpdateMemberArgsSchema = z.strictObject({
  userId: z.string().min(1),
  role: z.enum(ROLES),
})

export const RemoveMemberArgsSchema = z.strictObject({ userId: z.string().min(1) })

export const MemberKeyArgsSchema = z.strictObject({ userId: z.string().min(1), id: z.string().min(1) })
