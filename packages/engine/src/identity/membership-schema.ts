import { z } from 'zod'
import { ROLES } from '../scopes.ts'
import { NameSchema, TimeZoneSchema, UlidSchema } from '../shared/schema.ts'
import { ScopeListSchema } from './schema.ts'

/** How long an invitation lasts unless its owner says otherwise, and the longest it may. */
export const INVITATION_DEFAULT_DAYS = 7
export const INVITATION_MAX_DAYS = 30

const KeyHashSchema = z.string().regex(/^[0-9a-f]{64}$/)

export const CreateInvitationArgsSchema = z.strictObject({
  id: UlidSchema,
  role: z.enum(ROLES).default('member'),
  scopes: ScopeListSchema,
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
    })
    .optional(),
  key: z.strictObject({
    id: UlidSchema,
    name: NameSchema,
    keyHash: KeyHashSchema,
    prefix: z.string().min(4).max(16),
  }),
})
export type RedeemInvitationArgs = z.output<typeof RedeemInvitationArgsSchema>

export const UpdateMemberArgsSchema = z.strictObject({
  userId: z.string().min(1),
  role: z.enum(ROLES),
})

export const RemoveMemberArgsSchema = z.strictObject({ userId: z.string().min(1) })

export const MemberKeyArgsSchema = z.strictObject({ userId: z.string().min(1), id: z.string().min(1) })
