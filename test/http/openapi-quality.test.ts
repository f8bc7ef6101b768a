import { existsSync, readFileSync } from 'node:fs'
import { operations } from '@hearth/engine'
import { RESERVED_PATH_WORDS } from '@hearth/server'
import { createConfig, lintFromString } from '@redocly/openapi-core'
import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'

const server = useTestServer()
const WRITES = ['post', 'put', 'patch']
const SPEC = new URL('../../../shared/spec/household-finance-api.md', import.meta.url)

type Operation = {
  operationId?: string
  tags?: string[]
  parameters?: { in: string; name: string }[]
  responses: Record<string, { description: string }>
}

async function document() {
  return (await apiClient(server.url, null).get('/openapi.json')).body as {
    tags: { name: string }[]
    paths: Record<string, Record<string, Operation>>
  }
}

function eachOperation(doc: Awaited<ReturnType<typeof document>>) {
  return Object.entries(doc.paths).flatMap(([path, ops]) =>
    Object.entries(ops).map(([method, op]) => ({ path, method, op })),
  )
}

describe('OpenAPI document quality', () => {
  it("passes Redocly's recommended rules with no error and no warning", async () => {
    const source = JSON.stringify(await document())
    const config = await createConfig({ extends: ['recommended'] })
    const problems = await lintFromString({ source, absoluteRef: 'openapi.json', config })
    expect(
      problems.map((p) => `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}`),
    ).toEqual([])
  })

  it('names every operation after its registry operation, once, with a declared tag', async () => {
    const doc = await document()
    const declared = new Set(doc.tags.map((t) => t.name))
    const ids = eachOperation(doc).map(({ op }) => op.operationId)
    expect(new Set(ids).size).toBe(ids.length)
    for (const { path, method, op } of eachOperation(doc)) {
      expect(op.operationId, `${method} ${path}`).toBeDefined()
      // ai.chat streams and ai.usage reads the server's caps: hand-written routes (docs/api/assistant.md).
      // oidc.provider reads the server's OpenID Connect settings likewise (docs/api/sign-in.md).
      // Notes are Yjs documents the server edits, not registry operations (docs/api/notes.md).
      // A passkey sign-in's challenge is handed out before anyone is known: no operation of a caller.
      if (
        ![
          'system.health',
          'system.ready',
          'sync.push',
          'sync.snapshot',
          'ai.chat',
          'ai.usage',
          'sessions.passkeyOptions',
          'oidc.provider',
        ].includes(op.operationId!) &&
        !op.operationId!.startsWith('notes.')
      ) {
        expect(operations.byName.has(op.operationId!), `${op.operationId} is in the registry`).toBe(true)
      }
      for (const tag of op.tags ?? []) expect(declared.has(tag), `tag ${tag} is declared`).toBe(true)
    }
  })

  it('declares Idempotency-Key on every write and its own error codes on every operation', async () => {
    for (const { path, method, op } of eachOperation(await document())) {
      // A sync push is exactly-once by its mutation ids, and an invitation code works once (a
      // caller without a key has no user to hold a stored answer); neither takes an Idempotency-Key.
      // A chat turn streams and is never replayed: it refuses the key with 400 (docs/operations.md).
      // Signing in and redeeming a link have no session yet to hold a stored answer; a password
      // change retried fails on its old password; a retried reset link replaces the first
      // (docs/api/sign-in.md). Second factors and passkeys likewise: a retry gets a fresh
      // challenge or secret, finds its challenge or pending secret used (4xx), or finds the factor
      // already gone (404); a rename is the same twice. A device signing in or refreshing has no
      // session yet either (and a refresh token works once); starting a link only answers where to
      // send the browser. An email verification link works once (a retry finds it used, 410); sending
      // one again replaces the last, as a reset link does.
      if (
        WRITES.includes(method) &&
        ![
          'sync.push',
          'invitations.redeem',
          'ai.chat',
          'sessions.create',
          'signInLinks.redeem',
          'passwords.set',
          'signInLinks.createReset',
          'totp.begin',
          'totp.confirm',
          'totp.remove',
          'recoveryCodes.regenerate',
          'passkeys.registrationOptions',
          'passkeys.add',
          'passkeys.rename',
          'passkeys.remove',
          'sessions.passkeyOptions',
          'sessions.createWithPasskey',
          'signInLinks.passkeyOptions',
          'invitations.passkeyOptions',
          'devices.create',
          'devices.refresh',
          'oidcIdentities.link',
          'emailVerifications.verify',
          'emailVerifications.send',
        ].includes(op.operationId!)
      ) {
        expect(
          op.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
          `${method} ${path} declares Idempotency-Key`,
        ).toBe(true)
        expect(op.responses['422']?.description).toContain('IDEMPOTENCY_KEY_REUSED')
      }
      if (op.operationId === 'system.health' || op.operationId === 'system.ready') continue
      // A link's code is the whole credential: a wrong one is 404, a spent one 410, never 401 (and
      // so is an invitation's, for a passkey's challenge, and a mailed email verification link's).
      // A passkey's answer is too (its 401s name the passkey), and its challenge asks for nothing.
      // Whether an OpenID Connect provider signs people in is public: no credential to refuse.
      if (
        ![
          'signInLinks.redeem',
          'signInLinks.passkeyOptions',
          'invitations.passkeyOptions',
          'sessions.passkeyOptions',
          'sessions.createWithPasskey',
          'oidc.provider',
          'emailVerifications.verify',
        ].includes(op.operationId!)
      ) {
        expect(op.responses['401']?.description, `${method} ${path}`).toContain('UNAUTHENTICATED')
      }
      expect(op.responses['400']?.description, `${method} ${path}`).toContain('VALIDATION_FAILED')
    }
  })

  it('never reads a fixed path word of the contract as an id', async () => {
    const owner = await server.newOwner()
    const res = await owner.api.get('/households/current/accounts/page')
    expect(res.status).toBe(404)
    expect(res.body.code).toBe('ROUTE_NOT_FOUND')
  })

  it.skipIf(!existsSync(SPEC))('reserves every fixed path word of the contract', () => {
    const words = new Set<string>()
    for (const [, path] of readFileSync(SPEC, 'utf8').matchAll(
      /^\| (?:GET|POST|PATCH|PUT|DELETE) \| (\S+)/gm,
    )) {
      for (const segment of path!.split('/')) if (/^[a-z][a-z-]*$/.test(segment)) words.add(segment)
    }
    expect([...words].filter((w) => !RESERVED_PATH_WORDS.has(w))).toEqual([])
  })
})
