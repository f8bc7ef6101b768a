import { SCOPES, ScopeListSchema, TimeZoneSchema } from '@hearth/engine'
import { z } from 'zod'
import { RedeemPasskeySchema, SessionSchema } from './sign-in.ts'

const Instant = z.string().describe('ISO 8601 instant in UTC.')

export const HouseholdSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    baseCurrency: z.string(),
    timeZone: z.string(),
    dataLanguage: z.string(),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'Household' })

export const MemberSchema = z
  .object({
    userId: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    role: z.enum(['owner', 'member']),
    joinedAt: Instant,
  })
  .meta({ id: 'Member' })

export const MemberListSchema = z.object({ items: z.array(MemberSchema) }).meta({ id: 'MemberList' })

export const UserSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    email: z.string().nullable(),
    emailVerifiedAt: Instant.nullable().describe(
      'When you followed the link mailed to your email (docs/api/sign-in.md#email-verification); null until then, and again after the email changes.',
    ),
    timeZone: z.string().nullable(),
    defaultHouseholdId: z.string().nullable(),
    preferences: z.record(z.string(), z.unknown()),
    createdAt: Instant,
    updatedAt: Instant,
  })
  .meta({ id: 'User' })

export const ApiKeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    prefix: z.string().describe('The first characters of the key, to recognise it by.'),
    scopes: z.array(z.enum(SCOPES)),
    createdAt: Instant,
    lastUsedAt: Instant.nullable(),
    revokedAt: Instant.nullable(),
  })
  .meta({ id: 'ApiKey' })

export const ApiKeyListSchema = z.object({ items: z.array(ApiKeySchema) }).meta({ id: 'ApiKeyList' })

export const CreatedApiKeySchema = ApiKeySchema.extend({
  key: z.string().describe('The secret. Shown once, in this response only; it cannot be read back.'),
}).meta({ id: 'CreatedApiKey' })

export const CreateApiKeyBodySchema = z
  .strictObject({
    name: z.string().trim().min(1).max(200),
    scopes: ScopeListSchema,
  })
  .meta({ id: 'CreateApiKeyBody' })

export const MyHouseholdListSchema = z
  .object({
    items: z.array(
      HouseholdSchema.extend({ role: z.enum(['owner', 'member']), joinedAt: Instant }).meta({
        id: 'MyHousehold',
      }),
    ),
  })
  .meta({ id: 'MyHouseholdList' })

export const MembershipSchema = z
  .object({ householdId: z.string(), userId: z.string(), role: z.enum(['owner', 'member']) })
  .meta({ id: 'Membership' })

export const InvitationSchema = z
  .object({
    id: z.string(),
    role: z.enum(['owner', 'member']),
    scopes: z.array(z.enum(SCOPES)).describe('The scopes of the key the invitee gets.'),
    prefix: z.string().describe('The first characters of the code, to recognise it by.'),
    note: z.string().nullable(),
    status: z.enum(['pending', 'redeemed', 'revoked', 'expired']),
    createdBy: z.string(),
    createdAt: Instant,
    expiresAt: Instant,
    redeemedAt: Instant.nullable(),
    redeemedBy: z.string().nullable(),
    revokedAt: Instant.nullable(),
  })
  .meta({ id: 'Invitation' })

export const InvitationListSchema = z
  .object({ items: z.array(InvitationSchema) })
  .meta({ id: 'InvitationList' })

export const CreatedInvitationSchema = InvitationSchema.extend({
  code: z.string().describe('The code to hand to the invitee. Shown once, in this response only.'),
}).meta({ id: 'CreatedInvitation' })

export const CreateInvitationBodySchema = z
  .strictObject({
    role: z
      .enum(['owner', 'member', 'viewer'])
      .optional()
      .describe(
        'Default `member`. `viewer` is a preset: the invitee joins as a member whose key only reads (every `read:` scope, and `write:profile`, `write:notifications`).',
      ),
    scopes: ScopeListSchema.optional().describe(
      "The redeemer's first key gets these; a subset of yours. Left out, the role's preset: every scope for `owner` and `member`, the read scopes for `viewer`, less any you do not hold.",
    ),
    expiresAt: z.iso
      .datetime({ offset: true })
      .optional()
      .describe('Default 7 days from now; at most 30 days ahead.'),
    note: z.string().max(200).nullish().describe('Who it is for, for your own list.'),
  })
  .meta({ id: 'CreateInvitationBody' })

export const RedeemInvitationBodySchema = z
  .strictObject({
    code: z.string().min(1).max(200).describe('The code the owner handed you.'),
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Your name; required when you call without a key (a new user is made).'),
    email: z.email().max(320).nullish().describe('Your email, when you call without a key.'),
    timeZone: TimeZoneSchema.nullish().describe('Your time zone, when you call without a key.'),
    keyName: z.string().trim().min(1).max(200).optional().describe('Default "Invitation key".'),
    password: z
      .string()
      .min(1)
      .max(1024)
      .optional()
      .describe(
        'Sign up instead of taking a key: your password (at least 12 characters, not a common one; `email` required). The answer sets the session cookie and holds no key.',
      ),
    passkey: RedeemPasskeySchema.optional().describe(
      'Sign up with a passkey in place of `password` (`email` required): made for the options of `POST /invitations/passkey/options`. The answer sets the session cookie and holds no key.',
    ),
    deviceName: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('With `password` or `passkey`: what to call this browser on your sessions list.'),
  })
  .meta({ id: 'RedeemInvitationBody' })

export const RedemptionSchema = z
  .object({
    household: HouseholdSchema,
    userId: z.string(),
    role: z.enum(['owner', 'member']),
    apiKey: CreatedApiKeySchema.nullable().describe(
      'Your first key; null when you signed up with a password or a passkey.',
    ),
    session: SessionSchema.optional().describe(
      'With `password` or `passkey`: the session the cookie now holds.',
    ),
  })
  .meta({ id: 'Redemption' })
