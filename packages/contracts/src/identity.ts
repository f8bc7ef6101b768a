import { SCOPES, ScopeListSchema } from '@hearth/engine'
import { z } from 'zod'

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
