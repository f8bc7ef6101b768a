import { ApiKeyListSchema, CreateApiKeyBodySchema, CreatedApiKeySchema, UserSchema } from '@hearth/contracts'
import { newUlid, operations, PREFERENCES_MAX_BYTES } from '@hearth/engine'
import { z } from '@hono/zod-openapi'
import { mintApiKey } from '../auth/api-key-token.ts'
import { operationRoute, unknownFields } from '../http/operation-route.ts'

const PreferencesBodySchema = z
  .record(z.string(), z.unknown())
  .meta({ id: 'Preferences', description: `Any JSON object up to ${PREFERENCES_MAX_BYTES} bytes.` })

/** The caller's own profile, preferences and API keys. */
export const userRoutes = [
  operationRoute(operations.profile.get, {
    method: 'get',
    path: '/users/me',
    status: 200,
    tag: 'Users',
    summary: 'Get your profile',
    response: UserSchema,
    responseDescription: 'Your profile.',
  }),
  operationRoute(operations.profile.update, {
    method: 'patch',
    path: '/users/me',
    status: 200,
    tag: 'Users',
    summary: 'Update your profile',
    response: UserSchema,
    responseDescription: 'Your updated profile.',
  }),
  operationRoute(operations.profile.replacePreferences, {
    method: 'patch',
    path: '/users/me/preferences',
    status: 200,
    tag: 'Users',
    summary: 'Replace your preferences',
    input: PreferencesBodySchema,
    response: UserSchema,
    responseDescription: 'Your profile with the new preferences.',
    notes: `The body replaces the whole preferences object. It must be a JSON object of at most ${PREFERENCES_MAX_BYTES} bytes; an empty body is refused (send \`{}\` to clear them).`,
    prepare: ({ query, body }) => {
      // The body is the whole argument: no query parameter has a place to go.
      if (Object.keys(query).length > 0) throw unknownFields(Object.keys(query))
      return { args: { preferences: body } }
    },
  }),
  operationRoute(operations.apiKeys.list, {
    method: 'get',
    path: '/users/me/api-keys',
    status: 200,
    tag: 'API keys',
    summary: 'List your API keys',
    response: ApiKeyListSchema,
    responseDescription: 'Your keys.',
    notes: 'Newest first, revoked keys included. Secrets are never shown.',
    present: (items) => ({ items }),
  }),
  operationRoute(operations.apiKeys.create, {
    method: 'post',
    path: '/users/me/api-keys',
    status: 201,
    tag: 'API keys',
    summary: 'Create an API key',
    input: CreateApiKeyBodySchema,
    response: CreatedApiKeySchema,
    responseDescription: 'The new key, with its secret.',
    notes: "The scopes must be a subset of the calling key's. The secret is in `key`, shown once.",
    secretField: 'key',
    prepare({ query, body }) {
      // The secret is minted here and only its hash reaches the operation and the database.
      const minted = mintApiKey()
      const made = { id: newUlid(), keyHash: minted.hash, prefix: minted.prefix }
      // A query parameter is refused by the operation's schema; a field the server makes is
      // refused here rather than silently replaced.
      const given = { ...query, ...(body as Record<string, unknown>) }
      const clash = Object.keys(given).filter((k) => Object.hasOwn(made, k))
      if (clash.length > 0) throw unknownFields(clash, 'Unknown field: the server sets it.')
      return {
        args: { ...given, ...made },
        present: (result) => ({ ...(result as object), key: minted.token }),
      }
    },
  }),
  operationRoute(operations.apiKeys.revoke, {
    method: 'delete',
    path: '/users/me/api-keys/{id}',
    status: 204,
    tag: 'API keys',
    summary: 'Revoke an API key',
    notes: 'Takes effect at once; revoking a revoked key again is harmless.',
  }),
]
