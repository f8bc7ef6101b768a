import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Store } from '@hearth/engine'
import { writeBackup } from '@hearth/engine/node'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { afterAll, describe, expect, it } from 'vitest'
import { totpCodeAt } from '../../server/src/auth/totp.ts'
import { type ApiClient, useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const webhooks = { allowPrivate: true, timeoutMs: 2000 }
// Stores of their own: each secret is looked for in every table and in a backup, which on the
// worker's shared store would read every row its earlier files wrote.
const keyed = useTestServer(
  { webhooks: { ...webhooks, secretKey: 'secrets-at-rest-key' } },
  { isolated: true },
)
const keyless = useTestServer({ webhooks }, { isolated: true })

/** The tables of the store whose rows, read as text, hold `needle`. */
async function tablesHolding(store: Store, needle: string): Promise<string[]> {
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = current_schema() and table_type = 'BASE TABLE'`.execute(store.db)
  const found: string[] = []
  for (const { name } of tables.rows) {
    const hits = await sql<{ n: number }>`
      select count(*)::int as n from ${sql.table(name)} as t
      where position(${needle} in t::text) > 0`.execute(store.db)
    if (hits.rows[0]!.n > 0) found.push(name)
  }
  return found
}

/** Issues an API key, an owner invitation and a webhook secret (new and rotated), each under an Idempotency-Key. */
async function issueSecrets(api: ApiClient) {
  const headers = (name: string) => ({ 'idempotency-key': `${name}-${ulid()}` })
  const keyHeaders = headers('key')
  const key = { path: '/users/me/api-keys', body: { name: 'Laptop', scopes: ['read:transactions'] } }
  const inviteHeaders = headers('invite')
  const invite = { path: `${H}/invitations`, body: { role: 'owner', scopes: ['read:transactions'] } }
  const hookHeaders = headers('hook')
  const hook = {
    path: `${H}/webhooks/subscriptions`,
    body: { url: 'http://127.0.0.1:9/', eventTypes: ['*'] },
  }
  const madeKey = expectStatus(await api.post(key.path, key.body, keyHeaders), 201)
  const madeInvite = expectStatus(await api.post(invite.path, invite.body, inviteHeaders), 201)
  const madeHook = expectStatus(await api.post(hook.path, hook.body, hookHeaders), 201)
  const rotate = { path: `${hook.path}/${madeHook.id}/rotate-secret`, body: {} }
  const rotateHeaders = headers('rotate')
  const rotated = expectStatus(await api.post(rotate.path, rotate.body, rotateHeaders), 200)
  return {
    secrets: [madeKey.key, madeInvite.code, madeHook.secret, rotated.secret] as string[],
    requests: [
      { ...key, headers: keyHeaders, field: 'key', answer: madeKey },
      { ...invite, headers: inviteHeaders, field: 'code', answer: madeInvite },
      { ...hook, headers: hookHeaders, field: 'secret', answer: madeHook },
      { ...rotate, headers: rotateHeaders, field: 'secret', answer: rotated },
    ],
  }
}

/**
 * Sends a request again after a restart: the client's pooled connection to the old server may be
 * the one it tries first, and fails without reaching the new one.
 */
async function afterRestart(
  api: ApiClient,
  r: { path: string; body: unknown; headers: Record<string, string> },
) {
  try {
    return await api.post(r.path, r.body, r.headers)
  } catch {
    return api.post(r.path, r.body, r.headers)
  }
}

async function backupText(store: Store): Promise<string> {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-secrets-'))
  dirs.push(dir)
  const path = join(dir, 'backup.jsonl')
  await writeBackup(store, path)
  return readFileSync(path, 'utf8')
}

describe('secrets at rest', () => {
  it('keeps no new key, invitation code or webhook secret in clear in the store or a backup', async () => {
    const { api } = await keyed.newOwner()
    const { secrets } = await issueSecrets(api)
    const backup = await backupText(keyed.store)
    for (const secret of secrets) {
      expect(secret.length).toBeGreaterThan(20)
      expect(await tablesHolding(keyed.store, secret), secret).toEqual([])
      expect(backup.includes(secret), secret).toBe(false)
      // Nor the secret's random part, in case a prefix were stored apart.
      const tail = secret.slice(-24)
      expect(await tablesHolding(keyed.store, tail), tail).toEqual([])
      expect(backup.includes(tail), tail).toBe(false)
    }
  })

  // Several password checks from one address take their turns (server/src/auth/hash-gate.ts).
  it('keeps no authenticator app secret or recovery code in clear in the store or a backup', {
    timeout: 120_000,
  }, async () => {
    const { api } = await keyed.newOwner()
    const { secret } = expectStatus(await api.post('/users/me/totp', undefined, {}), 201)
    const confirmed = expectStatus(
      await api.post('/users/me/totp/confirm', { code: totpCodeAt(secret, Date.now()) }, {}),
      200,
    )
    const backup = await backupText(keyed.store)
    const codes = (confirmed.recoveryCodes as string[]).flatMap((code) => [code, code.replace('-', '')])
    for (const needle of [secret as string, ...codes]) {
      expect(await tablesHolding(keyed.store, needle), needle).toEqual([])
      expect(backup.includes(needle), needle).toBe(false)
    }
  })

  it('replays each secret-bearing answer byte for byte, across a restart when the server has a key', async () => {
    const { api } = await keyed.newOwner()
    const { requests } = await issueSecrets(api)
    for (const round of ['before', 'after'] as const) {
      if (round === 'after') await keyed.restart()
      for (const r of requests) {
        const again = await afterRestart(api, r)
        expect(again.status, `${r.path} ${round}`).toBe(r.path.endsWith('rotate-secret') ? 200 : 201)
        expect(again.headers.get('idempotent-replayed')).toBe('true')
        expect(again.body).toEqual(r.answer)
      }
    }
  })

  it('keeps no secret in clear without a key either, and after a restart answers 410 naming the resource', async () => {
    const { api } = await keyless.newOwner()
    const { secrets, requests } = await issueSecrets(api)
    // The webhook secrets themselves sit in their table marked plain: without a key (docs/security.md);
    // the stored answers hold none of the four.
    const answers = await keyless.store.db.selectFrom('idempotency_keys').select('body').execute()
    for (const secret of secrets) {
      expect(answers.some((a) => a.body?.includes(secret))).toBe(false)
    }
    const [key, invite] = secrets
    expect(await tablesHolding(keyless.store, key!)).toEqual([])
    expect(await tablesHolding(keyless.store, invite!)).toEqual([])
    // Within the process that sealed them, a retry gets its secret again.
    for (const r of requests) {
      expect((await api.post(r.path, r.body, r.headers)).body).toEqual(r.answer)
    }
    // A restart without a key forgets the key the answers were sealed under.
    await keyless.restart()
    for (const r of requests) {
      const problem = expectProblem(await afterRestart(api, r), 410, 'SECRET_NOT_REPLAYABLE')
      expect(problem.resource.id).toBe(r.answer.id)
      expect(problem.resource[r.field]).toBeUndefined()
      expect(JSON.stringify(problem)).not.toContain(r.answer[r.field])
    }
    // The resources exist: the key is listed, and can be revoked.
    const listed = expectStatus(await api.get('/users/me/api-keys'), 200).items
    expect(listed.map((k: { id: string }) => k.id)).toContain(requests[0]!.answer.id)
  })
})
