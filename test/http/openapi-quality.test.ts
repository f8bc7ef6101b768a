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
      // Notes are Yjs documents the server edits, not registry operations (docs/api/notes.md).
      if (
        !['system.health', 'sync.push', 'sync.snapshot', 'ai.chat', 'ai.usage'].includes(op.operationId!) &&
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
      if (
        WRITES.includes(method) &&
        !['sync.push', 'invitations.redeem', 'ai.chat'].includes(op.operationId!)
      ) {
        expect(
          op.parameters?.some((p) => p.in === 'header' && p.name.toLowerCase() === 'idempotency-key'),
          `${method} ${path} declares Idempotency-Key`,
        ).toBe(true)
        expect(op.responses['422']?.description).toContain('IDEMPOTENCY_KEY_REUSED')
      }
      if (op.operationId === 'system.health') continue
      expect(op.responses['401']?.description, `${method} ${path}`).toContain('UNAUTHENTICATED')
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
