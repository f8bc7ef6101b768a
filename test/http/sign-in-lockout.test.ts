import { ulid } from 'ulidx'
import { describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { apiClient, TEST_DATABASE_URL, type TestMember, useTestServer } from '../src/index.ts'
import { rawSocket } from '../sync/socket.ts'

// The default limits (30 failures per address and per prefix a minute), every request from
// 127.0.0.1: the floods below pass both many times over. The tests run in order on one server.
const server = useTestServer({ databaseUrl: TEST_DATABASE_URL })
// Counters of its own, for the invitation codes.
const redeemServer = useTestServer()

/** A wrong key that shows `prefix` (the visible first 8 characters of a key) and then random ones. */
const wrongKey = (prefix: string) => `${prefix}${ulid()}${ulid()}`

/** Sends `count` wrong keys with `prefix` over REST, `parallel` at a time; answers their statuses. */
async function flood(prefix: string, count: number, parallel = 50): Promise<number[]> {
  const statuses: number[] = []
  const worker = async () => {
    while (statuses.length < count) {
      statuses.push(0)
      const at = statuses.length - 1
      statuses[at] = (await apiClient(server.url, wrongKey(prefix)).get('/users/me')).status
    }
  }
  await Promise.all(Array.from({ length: parallel }, worker))
  return statuses
}

/** Opens a note socket as a browser would; answers `open` once the server speaks, or how it closed. */
function noteSocket(path: string, token: string): Promise<'open' | { code: number; reason: string }> {
  const ws = new WebSocket(`${server.url.replace(/^http/, 'ws')}/notes/ws/${path}`, [
    'hearth-notes',
    `hearth-key.${token}`,
  ])
  return new Promise((resolve, reject) => {
    ws.once('message', () => {
      resolve('open')
      ws.close()
    })
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }))
    ws.on('error', reject)
  })
}

async function hello(token: string, householdId: string) {
  const socket = await rawSocket(server.url)
  socket.send({ type: 'hello', token, householdId, clientId: ulid(), cursor: null })
  for (;;) {
    const answer = await socket.next()
    if (answer.type === 'welcome' || answer.type === 'error') {
      socket.close()
      return answer
    }
  }
}

const prefixOf = (member: TestMember) => member.api.token.slice(0, 8)

describe('sign-in attempts never lock out a valid member', () => {
  it('answers a valid key over REST while 200 wrong keys with its prefix arrive from its address', async () => {
    const owner = await server.newOwner()
    const flooding = flood(prefixOf(owner), 200)
    const valid: number[] = []
    let done = false
    void flooding.then(() => {
      done = true
    })
    while (!done) valid.push((await owner.api.get('/users/me')).status)
    const wrong = await flooding
    // The flood backed off: past the limit its wrong keys answer 429, not 401.
    expect(wrong.filter((s) => s === 401).length).toBeLessThanOrEqual(30)
    expect(wrong.filter((s) => s === 429).length).toBeGreaterThanOrEqual(170)
    expect(new Set(wrong)).toEqual(new Set([401, 429]))
    // Every request of the valid key was answered, during the flood and after it.
    valid.push((await owner.api.get('/users/me')).status)
    expect(valid.length).toBeGreaterThan(1)
    expect(new Set(valid)).toEqual(new Set([200]))
  })

  it('backs off a wrong key from the flooded address: its 429 waits a second and carries Retry-After', async () => {
    const started = performance.now()
    const refused = await apiClient(server.url, wrongKey('hth_ZZZZ')).get('/users/me')
    expect(performance.now() - started).toBeGreaterThanOrEqual(950)
    expect(refused.status).toBe(429)
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
  })

  it('joins /sync with a valid key while wrong hellos and wrong REST keys with its prefix flood', async () => {
    const owner = await server.newOwner()
    // Wrong hellos eight at a time: more sockets that have not said hello would pass the
    // address's cap on them (HEARTH_SYNC_MAX_UNJOINED_SOCKETS_PER_ADDRESS), which closes the oldest.
    const wrongHellos = async () => {
      const answers = []
      for (let round = 0; round < 5; round++) {
        const batch = Array.from({ length: 8 }, () => hello(wrongKey(prefixOf(owner)), owner.householdId))
        answers.push(...(await Promise.all(batch)))
      }
      return answers
    }
    const [rest, wrong, right] = await Promise.all([
      flood(prefixOf(owner), 160),
      wrongHellos(),
      hello(owner.api.token, owner.householdId),
    ])
    expect(right.type, JSON.stringify(right)).toBe('welcome')
    expect(rest.every((s) => s === 429)).toBe(true)
    expect(new Set(wrong.map((m) => m.code))).toEqual(new Set(['RATE_LIMITED']))
    // After the flood too, and a wrong hello still backs off.
    const after = await hello(owner.api.token, owner.householdId)
    expect(after.type, JSON.stringify(after)).toBe('welcome')
  })

  it('opens a note room with a valid key while wrong keys with its prefix flood', async () => {
    const owner = await server.newOwner()
    const path = `${owner.householdId}/month/2026-11`
    const [wrong, right] = await Promise.all([flood(prefixOf(owner), 200), noteSocket(path, owner.api.token)])
    expect(right).toBe('open')
    expect(wrong.every((s) => s === 429)).toBe(true)
    expect(await noteSocket(path, wrongKey(prefixOf(owner)))).toEqual({ code: 4429, reason: 'RATE_LIMITED' })
    expect(await noteSocket(path, owner.api.token)).toBe('open')
  })
})

describe('redeeming an invitation', () => {
  it('limits wrong codes per address, and still redeems the right code from that address', async () => {
    const owner = await redeemServer.newOwner()
    const H = `/households/${owner.householdId}`
    const invitation = await owner.api.post(`${H}/invitations`, { scopes: ['read:households'] })
    expect(invitation.status).toBe(201)
    const anonymous = apiClient(redeemServer.url, null)
    const guesses: { status: number; headers: Headers; body: any }[] = []
    for (let round = 0; round < 8; round++) {
      const batch = Array.from({ length: 40 }, () =>
        anonymous.post('/invitations/redeem', { code: `hinv_${ulid()}${ulid()}`, name: 'X' }),
      )
      guesses.push(...(await Promise.all(batch)))
    }
    const statuses = guesses.map((g) => g.status)
    expect(statuses.filter((s) => s === 404).length).toBeLessThanOrEqual(30)
    expect(statuses.filter((s) => s === 429).length).toBeGreaterThanOrEqual(290)
    const refused = guesses.find((g) => g.status === 429)!
    expect(refused.body).toMatchObject({ code: 'RATE_LIMITED' })
    expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0)
    const joined = await anonymous.post('/invitations/redeem', { code: invitation.body.code, name: 'Sam' })
    expect(joined.status).toBe(201)
    // A used code is a wrong guess now, and backs off like one.
    const again = await anonymous.post('/invitations/redeem', { code: invitation.body.code, name: 'Eve' })
    expect(again.status).toBe(429)
  })
})
