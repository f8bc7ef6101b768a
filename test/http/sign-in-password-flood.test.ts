import { createHash } from 'node:crypto'
import { newUlid, operations, runMutation } from '@hearth/engine'
import { describe, expect, it } from 'vitest'
import { type TestMember, type TestServer, useTestServer } from '../src/index.ts'

// Behind a trusted proxy (the test's loopback), so each request names its client address.
const server = useTestServer({ trustedProxies: ['127.0.0.1', '::1'] })
// The same with fewer waiting turns per address (HEARTH_PASSWORD_CHECKS_WAITING_PER_ADDRESS=2).
const strict = useTestServer({
  trustedProxies: ['127.0.0.1', '::1'],
  passwordChecks: { perAddress: 1, waitingPerAddress: 2, perAccount: 2 },
})

const PASSWORD = 'plum tree under snow 42'
const FLOODER = '198.51.100.66'
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex')

/** Signs in with an email and password from `address`; answers the status, body and Retry-After. */
async function signIn(email: string, password: string, address: string, on: TestServer = server) {
  const res = await fetch(`${on.url}/sessions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: on.url, 'x-forwarded-for': address },
    body: JSON.stringify({ email, password }),
  })
  return { status: res.status, body: await res.json(), retryAfter: res.headers.get('retry-after') }
}

/** A person with an email and the password, set through a setup link as at first start. */
async function personWithPassword(member: TestMember, on: TestServer = server): Promise<string> {
  const code = `hsl_${newUlid()}${newUlid()}`
  await runMutation(
    on.store.db,
    operations.signInLinks.issue,
    {
      id: newUlid(),
      purpose: 'setup',
      codeHash: sha256(code),
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    },
    { userId: member.userId, scopes: [], now: new Date(Date.now() - 1000) },
  )
  const email = `person-${newUlid().toLowerCase()}@example.org`
  const res = await fetch(`${on.url}/sign-in-links/redeem`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: on.url },
    body: JSON.stringify({ code, password: PASSWORD, email }),
  })
  expect(res.status).toBe(201)
  return email
}

describe('a flood of wrong passwords from one address', () => {
  it('has its excess refused unchecked, while the right passwords from another address are accepted', async () => {
    const owner = await server.newOwner()
    const victim = await personWithPassword(owner)
    const other = await personWithPassword(await server.newMember(owner))

    // 60 wrong passwords for the victim's account at once from one address: one is checked at a
    // time and 8 wait their turn, so most are answered 429 without costing a hash.
    const flood = Promise.all(
      Array.from({ length: 60 }, (_, i) => signIn(victim, `wrong password number ${i}`, FLOODER)),
    )
    // Meanwhile, from other addresses: another person, and the flooded account's own person.
    const [otherSignIn, victimSignIn] = await Promise.all([
      signIn(other, PASSWORD, '203.0.113.20'),
      signIn(victim, PASSWORD, '203.0.113.21'),
    ])
    expect(otherSignIn.status).toBe(201)
    expect(victimSignIn.status).toBe(201)
    const answers = await flood

    const unchecked = answers.filter((a) => a.body.detail?.includes('at once'))
    const checked = answers.filter((a) => !a.body.detail?.includes('at once'))
    expect(unchecked.length).toBeGreaterThan(0)
    for (const answer of unchecked) {
      expect(answer.status).toBe(429)
      expect(answer.body.code).toBe('RATE_LIMITED')
      expect(Number(answer.retryAfter)).toBeGreaterThanOrEqual(1)
    }
    // Every checked one was wrong: 401, or 429 once the account and the address were backing off.
    expect(checked.length).toBeGreaterThan(0)
    for (const answer of checked) expect([401, 429]).toContain(answer.status)
    expect(unchecked.length + checked.length).toBe(60)
  })

  it('still accepts the right password from the flooding address once its turn comes, and refuses none while within its turns', async () => {
    const owner = await server.newOwner()
    const email = await personWithPassword(owner)
    const address = '198.51.100.77'
    // Nine at once fit: one checked, eight waiting. All are answered by their password.
    const answers = await Promise.all([
      ...Array.from({ length: 8 }, (_, i) => signIn(email, `not it, try ${i}`, address)),
      signIn(email, PASSWORD, address),
    ])
    expect(answers.slice(0, 8).map((a) => a.status)).toEqual(Array(8).fill(401))
    expect(answers[8]!.status).toBe(201)
  })

  it('waits as many turns per address as the server is set to, and refuses the next unchecked', async () => {
    const owner = await strict.newOwner()
    const email = await personWithPassword(owner, strict)
    const address = '198.51.100.88'
    // One checked and two waiting fit; the fourth and fifth are refused without a hash.
    const answers = await Promise.all(
      Array.from({ length: 5 }, (_, i) => signIn(email, `not it, try ${i}`, address, strict)),
    )
    const unchecked = answers.filter((a) => a.body.detail?.includes('at once'))
    expect(unchecked.map((a) => a.status)).toEqual([429, 429])
    expect(answers.filter((a) => a.status === 401)).toHaveLength(3)
  })
})
