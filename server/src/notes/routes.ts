import { createHash } from 'node:crypto'
import { EngineError, isStorableText, notFound, resolveMembership } from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { StatusCode } from 'hono/utils/http-status'
import type { AppEnv } from '../http/env.ts'
import { problem } from '../http/problem.ts'
import { apiRoute, jsonBody, jsonResponse, z } from '../http/route.ts'
import { MAX_NOTE_CHARS } from './note-content.ts'
import type { NoteHub } from './note-sessions.ts'
import { type NoteIdempotency, readNote } from './note-store.ts'
import { NOTE_KINDS, NOTE_SCOPES, type NoteKey, targetExists } from './targets.ts'

const NoteSchema = z
  .object({
    target: z.object({
      kind: z.enum(NOTE_KINDS).meta({ description: 'What the note hangs on.' }),
      id: z
        .string()
        .meta({ description: 'The account, category or transaction id, or the month (`YYYY-MM`).' }),
    }),
    text: z.string().meta({ description: 'The note’s plain text; empty when no one wrote one.' }),
    updatedAt: z
      .string()
      .nullable()
      .meta({ description: 'ISO 8601 instant in UTC of the last change; null when no one wrote one.' }),
  })
  .meta({ id: 'Note' })

const NoteTextSchema = z
  .strictObject({
    text: z
      .string()
      .max(MAX_NOTE_CHARS)
      .refine(isStorableText, 'Must not contain the NUL character (U+0000) or an unpaired surrogate.')
      .meta({
        description: `Plain text, at most ${MAX_NOTE_CHARS} characters (UTF-16 code units), without the NUL character.`,
      }),
  })
  .meta({ id: 'NoteText' })

/** Each kind's path under the household, and the name of its id parameter. */
const PATHS = {
  account: ['accounts', 'accountId', 'an account'],
  category: ['categories', 'categoryId', 'a category'],
  month: ['budgets', 'yearMonth', 'a budget month'],
  transaction: ['transactions', 'transactionId', 'a transaction'],
} as const

const idempotencyHeaders = z.object({
  'idempotency-key': z
    .string()
    .min(1)
    .max(255)
    .optional()
    .meta({
      description:
        'Makes a retry safe: the first answer is stored with the write, in its transaction, and replayed for 24 hours ' +
        'to a request with the same key, method, path and body (`Idempotent-Replayed: true`). Another request under ' +
        'the same key answers 422 `IDEMPOTENCY_KEY_REUSED`.',
    }),
})

const problem422 = {
  description:
    'The note would be too long (`NOTE_TOO_LONG`; checked against the merged note, live edits included), or the ' +
    'Idempotency-Key was used for another request (`IDEMPOTENCY_KEY_REUSED`).',
  content: {
    'application/problem+json': {
      schema: z.object({ type: z.string(), title: z.string(), status: z.number(), code: z.string() }).loose(),
    },
  },
}

/**
 * REST over shared notes: read a note's plain text, replace it, or append to it. Writes are Yjs
 * edits of the smallest changed span, merged with live editors' (docs/api/notes.md).
 */
export function noteRoutes(hub: NoteHub) {
  const app = new OpenAPIHono<AppEnv>()
  for (const kind of NOTE_KINDS) {
    const [segment, param, what] = PATHS[kind]
    const path = `/households/{householdId}/${segment}/{${param}}/note`
    const params = z.object({
      householdId: z.string().meta({ description: 'A household id, or `current`.' }),
      [param]: z
        .string()
        .meta({ description: kind === 'month' ? 'The month, `YYYY-MM`.' : `The ${kind} id.` }),
    })
    const scopes = NOTE_SCOPES[kind]
    const tag = 'Notes'
    const get = apiRoute({
      method: 'get',
      path,
      operationId: `notes.${kind}.get`,
      tags: [tag],
      summary: `Read the shared note on ${what}`,
      description:
        'The note’s plain text as last written (live editors’ changes included once they reach the server). ' +
        'A target with no note answers an empty text and `updatedAt: null`.',
      scope: scopes.read,
      request: { params },
      responses: { 200: jsonResponse(NoteSchema, 'The note.') },
    })
    const put = apiRoute({
      method: 'put',
      path,
      operationId: `notes.${kind}.replace`,
      tags: [tag],
      summary: `Replace the shared note on ${what}`,
      description:
        'Sets the note’s text. The server turns the change into a Yjs edit of the span that differs, so members ' +
        'editing the note live keep their own edits elsewhere in it and see this one at once.',
      scope: scopes.write,
      request: { params, headers: idempotencyHeaders, body: jsonBody(NoteTextSchema) },
      responses: { 200: jsonResponse(NoteSchema, 'The note after the change.'), 422: problem422 },
    })
    const append = apiRoute({
      method: 'post',
      path: `${path}/append`,
      operationId: `notes.${kind}.append`,
      tags: [tag],
      summary: `Append to the shared note on ${what}`,
      description:
        'Adds `text` at the end of the note as it is on the server when the request lands, merged with live edits. ' +
        'Add your own leading newline if you want one.',
      scope: scopes.write,
      request: { params, headers: idempotencyHeaders, body: jsonBody(NoteTextSchema) },
      responses: { 200: jsonResponse(NoteSchema, 'The note after the change.'), 422: problem422 },
    })
    const target = async (c: Context<AppEnv>): Promise<NoteKey> => {
      const householdRef = c.req.param('householdId')!
      const id = c.req.param(param)!
      const membership = await resolveMembership(hub.store.db, c.var.caller.userId, householdRef)
      if (!membership) throw notFound('Household', householdRef)
      const key: NoteKey = { householdId: membership.householdId, kind, id }
      if (!(await targetExists(hub.store.db, key))) {
        throw new EngineError(404, 'NOT_FOUND', `No ${kind} ${id} in this household.`)
      }
      return key
    }
    const answer = async (c: Context<AppEnv>, key: NoteKey) => {
      const note = await readNote(hub.store.db, key)
      return c.json(
        { target: { kind, id: key.id }, text: note.text, updatedAt: note.updatedAt?.toISOString() ?? null },
        200,
      )
    }
    const write = (append: boolean) => async (c: Context<AppEnv>) => {
      const key = await target(c)
      const raw = await c.req.text()
      const body = JSON.parse(raw) as { text: string }
      const idempotencyKey = c.req.header('idempotency-key')
      if (idempotencyKey !== undefined && (idempotencyKey.length === 0 || idempotencyKey.length > 255)) {
        return problem(c, 400, 'INVALID_IDEMPOTENCY_KEY', {
          detail: 'Idempotency-Key must be 1 to 255 characters.',
        })
      }
      const idempotency: NoteIdempotency | undefined = idempotencyKey
        ? {
            claim: {
              userId: c.var.caller.userId,
              key: idempotencyKey,
              fingerprint: createHash('sha256').update(`${c.req.method} ${c.req.path}\n${raw}`).digest('hex'),
            },
            answer: (text, updatedAt) => ({
              status: 200,
              contentType: 'application/json',
              body: JSON.stringify({
                target: { kind, id: key.id },
                text,
                updatedAt: updatedAt.toISOString(),
              }),
            }),
          }
        : undefined
      const decision = await hub.withRoom(key, (room) => room.replaceText(body.text, append, idempotency))
      if (decision?.kind === 'mismatch') {
        return problem(c, 422, 'IDEMPOTENCY_KEY_REUSED', {
          detail:
            'This Idempotency-Key was already used for a different request. Use a new key for a new request.',
        })
      }
      if (decision?.kind === 'replay') {
        return c.newResponse(decision.body, decision.status as StatusCode, {
          'content-type': decision.contentType ?? 'application/json',
          'idempotent-replayed': 'true',
        })
      }
      return answer(c, key)
    }
    app.openapi(get, (async (c: Context<AppEnv>) => answer(c, await target(c))) as never)
    app.openapi(put, write(false) as never)
    app.openapi(append, write(true) as never)
  }
  return app
}
