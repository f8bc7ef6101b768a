import { ApiKeyListSchema, CreateApiKeyBodySchema, CreatedApiKeySchema, UserSchema } from '@hearth/contracts'
import {
  operations,
  PREFERENCES_MAX_BYTES,
  runMutation,
  runQuery,
  type Store,
  UpdateProfileArgsSchema,
} from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { ulid } from 'ulidx'
import { mintApiKey } from '../auth/api-key-token.ts'
import { type AppEnv, actorContext } from '../http/env.ts'
import { apiRoute, jsonBody, jsonResponse, z } from '../http/route.ts'

const PreferencesBodySchema = z
  .record(z.string(), z.unknown())
  .meta({ id: 'Preferences', description: `Any JSON object up to ${PREFERENCES_MAX_BYTES} bytes.` })

const getMe = apiRoute({
  method: 'get',
  path: '/users/me',
  tags: ['Users'],
  summary: 'Get your profile',
  scope: 'read:profile',
  responses: { 200: jsonResponse(UserSchema, 'Your profile.') },
})

const updateMe = apiRoute({
  method: 'patch',
  path: '/users/me',
  tags: ['Users'],
  summary: 'Update your profile',
  scope: 'write:profile',
  request: { body: jsonBody(UpdateProfileArgsSchema) },
  responses: { 200: jsonResponse(UserSchema, 'Your updated profile.') },
})

const replacePreferences = apiRoute({
  method: 'patch',
  path: '/users/me/preferences',
  tags: ['Users'],
  summary: 'Replace your preferences',
  description: `The body replaces the whole preferences object. It must be a JSON object of at most ${PREFERENCES_MAX_BYTES} bytes.`,
  scope: 'write:profile',
  request: { body: jsonBody(PreferencesBodySchema) },
  responses: { 200: jsonResponse(UserSchema, 'Your profile with the new preferences.') },
})

const listKeys = apiRoute({
  method: 'get',
  path: '/users/me/api-keys',
  tags: ['API keys'],
  summary: 'List your API keys',
  description: 'Newest first, revoked keys included. Secrets are never shown.',
  scope: 'read:profile',
  responses: { 200: jsonResponse(ApiKeyListSchema, 'Your keys.') },
})

const createKey = apiRoute({
  method: 'post',
  path: '/users/me/api-keys',
  tags: ['API keys'],
  summary: 'Create an API key',
  description: "The scopes must be a subset of the calling key's. The secret is in `key`, shown once.",
  scope: 'write:profile',
  request: { body: jsonBody(CreateApiKeyBodySchema) },
  responses: { 201: jsonResponse(CreatedApiKeySchema, 'The new key, with its secret.') },
})

const revokeKey = apiRoute({
  method: 'delete',
  path: '/users/me/api-keys/{id}',
  tags: ['API keys'],
  summary: 'Revoke an API key',
  description: 'Takes effect at once; revoking a revoked key again is harmless.',
  scope: 'write:profile',
  request: { params: z.object({ id: z.string() }) },
  responses: { 204: { description: 'Revoked.' } },
})

/** The caller's own profile, preferences and API keys. */
export function userRoutes(store: Store) {
  return new OpenAPIHono<AppEnv>()
    .openapi(getMe, async (c) =>
      c.json(await runQuery(store.db, operations.profile.get, {}, actorContext(c.var)), 200),
    )
    .openapi(updateMe, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.profile.update,
        c.req.valid('json'),
        actorContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(replacePreferences, async (c) => {
      const { result } = await runMutation(
        store.db,
        operations.profile.replacePreferences,
        { preferences: c.req.valid('json') },
        actorContext(c.var),
      )
      return c.json(result, 200)
    })
    .openapi(listKeys, async (c) => {
      const items = await runQuery(store.db, operations.apiKeys.list, {}, actorContext(c.var))
      return c.json({ items }, 200)
    })
    .openapi(createKey, async (c) => {
      const body = c.req.valid('json')
      const minted = mintApiKey()
      const { result } = await runMutation(
        store.db,
        operations.apiKeys.create,
        { id: ulid(), name: body.name, scopes: body.scopes, keyHash: minted.hash, prefix: minted.prefix },
        actorContext(c.var),
      )
      return c.json({ ...result, key: minted.token }, 201)
    })
    .openapi(revokeKey, async (c) => {
      await runMutation(
        store.db,
        operations.apiKeys.revoke,
        { id: c.req.valid('param').id },
        actorContext(c.var),
      )
      return c.body(null, 204)
    })
}
