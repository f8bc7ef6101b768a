/**
 * What signing in as a person costs (issue 37): the password hash alone and a whole sign-in over
 * HTTP; a REST read signed in by the session cookie and by a device's access token beside the same
 * read with an API key; and a valid member's read and password sign-in while a flood of wrong
 * passwords for their account and wrong keys with their key's prefix arrives from one address
 * (the member signing in from another address, and from the flood's), beside the same without it.
 * One server process.
 *
 *   npm run bench:sign-in                       # the embedded store
 *   BENCH_DATABASE_URL=postgres://… npm run bench:sign-in
 *   BENCH_FLOOD_PARALLEL=32 npm run bench:sign-in   # more wrong attempts in flight (16 by default)
 *
 * The flood runs in a process of its own (flood.ts); both reach the server from 127.0.0.1, which the server
 * trusts as a proxy, and name their client address in `X-Forwarded-For`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { hashPassword, SCRYPT_PARAMS } from '../../server/src/auth/password-hash.ts'
import { flood, startFlood } from './flood.ts'
import { startServer, stopServer } from './server-process.ts'
import { readTags, summarizeReads, type Timing, time } from './stats.ts'

const TOKEN = 'hth_bench_sign_in_token_0123456789abcdefghij'
const EMAIL = 'bench@example.org'
const PASSWORD = 'a quiet bench in the park'
/** Reads per turn, and turns of each kind, alternating: key, cookie, device token, key … */
const READS = 200
const TURNS = 3
/** Reads and password sign-ins per turn beside the flood, and turns, alternating: alone, flooded … */
const FLOOD_READS = 100
const FLOOD_SIGN_INS = 5
const FLOOD_TURNS = 2
/** Wrong attempts in flight at once (`BENCH_FLOOD_PARALLEL`): half wrong passwords, half wrong keys. */
const FLOOD_PARALLEL = Number(process.env.BENCH_FLOOD_PARALLEL ?? 16)

/** Posts JSON as a page of the server would; answers the response. */
function post(url: string, path: string, body: unknown, headers: Record<string, string> = {}) {
  return fetch(`${url}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', origin: url, ...headers },
    body: JSON.stringify(body),
  })
}

/** One REST read (GET tags) signed in by `cookie`; answers its milliseconds. */
async function readTagsWithCookie(url: string, cookie: string): Promise<number> {
  const start = performance.now()
  const res = await fetch(`${url}/households/current/tags`, { headers: { cookie } })
  await res.arrayBuffer()
  if (res.status !== 200) throw new Error(`the read answered ${res.status}`)
  return performance.now() - start
}

/**
 * The server trusts this process's loopback as a proxy (`HEARTH_TRUSTED_PROXIES`), so a request
 * names its client address: the flood comes from `FLOOD_ADDRESS`; the member signs in from it too,
 * and from `MEMBER_ADDRESS`, another one.
 */
const FLOOD_ADDRESS = '198.51.100.66'
const MEMBER_ADDRESS = '203.0.113.5'

/** Signs in with the member's email and password; answers the session cookie. Throws unless 201. */
async function signInWithPassword(url: string, address = MEMBER_ADDRESS): Promise<string> {
  const res = await post(
    url,
    '/sessions',
    { email: EMAIL, password: PASSWORD },
    { 'x-forwarded-for': address },
  )
  await res.arrayBuffer()
  if (res.status !== 201) throw new Error(`sign-in answered ${res.status}`)
  return res.headers.get('set-cookie')!.split(';')[0]!
}

/** The member's sign-in from the flood's own address: 201, or 429 while its queue of checks is full. */
async function signInFromFloodAddress(url: string): Promise<number> {
  const res = await post(
    url,
    '/sessions',
    { email: EMAIL, password: PASSWORD },
    { 'x-forwarded-for': FLOOD_ADDRESS },
  )
  await res.arrayBuffer()
  if (res.status !== 201 && res.status !== 429) throw new Error(`sign-in answered ${res.status}`)
  return res.status
}

/**
 * One wrong attempt of the flood, from the flood's address: even workers send a wrong password for
 * the member's account (`POST /sessions`), odd ones a wrong key with the member's key prefix (GET
 * tags); labelled by kind and status.
 */
async function wrongAttempt(url: string, worker: number): Promise<string> {
  const wrong = crypto.randomUUID().replaceAll('-', '')
  const res =
    worker % 2 === 0
      ? await post(
          url,
          '/sessions',
          { email: EMAIL, password: `wrong ${wrong}` },
          { 'x-forwarded-for': FLOOD_ADDRESS },
        )
      : await fetch(`${url}/households/current/tags`, {
          headers: { authorization: `Bearer ${TOKEN.slice(0, 8)}${wrong}`, 'x-forwarded-for': FLOOD_ADDRESS },
        })
  await res.arrayBuffer()
  return `${worker % 2 === 0 ? 'password' : 'key'} ${res.status}`
}

async function main(): Promise<void> {
  const hash = await time(() => hashPassword(PASSWORD), { runs: 20, warmup: 2 })
  const databaseUrl = process.env.BENCH_DATABASE_URL
  const dataDir = mkdtempSync(join(tmpdir(), 'hearth-bench-sign-in-'))
  const { child, url } = await startServer({
    HEARTH_INIT_OWNER_TOKEN: TOKEN,
    HEARTH_DATA_DIR: dataDir,
    ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    HEARTH_RATE_REST_PER_KEY: '100000000',
    HEARTH_TRUSTED_PROXIES: '127.0.0.1,::1',
  })
  try {
    // The owner gets an email and a password: a session from the key, then the password set with it.
    await fetch(`${url}/users/me`, {
      method: 'PATCH',
      headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
      body: JSON.stringify({ email: EMAIL }),
    })
    const exchanged = await post(url, '/sessions', { apiKey: TOKEN })
    const first = exchanged.headers.get('set-cookie')!.split(';')[0]!
    const set = await fetch(`${url}/users/me/password`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json', origin: url, cookie: first },
      body: JSON.stringify({ newPassword: PASSWORD }),
    })
    if (set.status !== 200) throw new Error(`setting the password answered ${set.status}`)

    const signIn = await time(
      async () => {
        await signInWithPassword(url)
      },
      { runs: 20, warmup: 2 },
    )
    const cookie = await signInWithPassword(url)
    // A device signs in with the same password for an access token (docs/api/sign-in.md#devices).
    const device = await post(url, '/devices', { name: 'Bench device', email: EMAIL, password: PASSWORD })
    if (device.status !== 201) throw new Error(`the device's sign-in answered ${device.status}`)
    const { accessToken } = (await device.json()) as { accessToken: string }

    for (let i = 0; i < 50; i++) {
      await readTags(url, TOKEN)
      await readTagsWithCookie(url, cookie)
      await readTags(url, accessToken)
    }
    const withKey: number[] = []
    const withCookie: number[] = []
    const withDevice: number[] = []
    for (let turn = 0; turn < TURNS; turn++) {
      for (let i = 0; i < READS; i++) withKey.push(await readTags(url, TOKEN))
      for (let i = 0; i < READS; i++) withCookie.push(await readTagsWithCookie(url, cookie))
      for (let i = 0; i < READS; i++) withDevice.push(await readTags(url, accessToken))
    }

    // The valid member beside a flood of wrong passwords and keys from one address.
    const alone = { reads: [] as number[], signIns: [] as number[], sameAddress: [] as number[] }
    const flooded = { reads: [] as number[], signIns: [] as number[], sameAddress: [] as number[] }
    const sameAddressAnswers: Record<string, number> = {}
    const statuses: Record<string, number> = {}
    let floodSeconds = 0
    const work = async (into: typeof alone) => {
      for (let i = 0; i < FLOOD_READS; i++) into.reads.push(await readTagsWithCookie(url, cookie))
      for (let i = 0; i < FLOOD_SIGN_INS; i++) {
        const start = performance.now()
        await signInWithPassword(url)
        into.signIns.push(performance.now() - start)
      }
      for (let i = 0; i < FLOOD_SIGN_INS; i++) {
        const start = performance.now()
        const status = await signInFromFloodAddress(url)
        into.sameAddress.push(performance.now() - start)
        if (into === flooded) sameAddressAnswers[status] = (sameAddressAnswers[status] ?? 0) + 1
      }
    }
    for (let turn = 0; turn < FLOOD_TURNS; turn++) {
      await work(alone)
      const running = await startFlood(new URL(import.meta.url).pathname, url)
      await work(flooded)
      const counts = await running.stop()
      floodSeconds += counts.seconds
      for (const [status, n] of Object.entries(counts.statuses)) {
        statuses[status] = (statuses[status] ?? 0) + n
      }
    }

    const k = summarizeReads(withKey)
    const c = summarizeReads(withCookie)
    const d = summarizeReads(withDevice)
    const store = databaseUrl ? 'PostgreSQL' : 'PGlite'
    const ms = (n: number) => `${n.toFixed(1)} ms`
    const { N, r, p } = SCRYPT_PARAMS
    const timing = (t: Timing) => `median ${ms(t.medianMs)}, p95 ${ms(t.p95Ms)}`
    console.log(`\nPassword hash (scrypt N=${N}, r=${r}, p=${p}), in this process, 20 runs`)
    console.log(timing(hash))
    console.log(`\nA whole sign-in (POST /sessions with email and password) on ${store}, 20 runs`)
    console.log(timing(signIn))
    console.log(`\nA REST read (GET tags) on ${store}, ${TURNS} turns of ${READS} reads each way`)
    console.log('| Signed in by | n | p50 | p99 | max |\n|---|---|---|---|---|')
    console.log(`| API key | ${k.reads} | ${ms(k.p50)} | ${ms(k.p99)} | ${ms(k.max)} |`)
    console.log(`| session cookie | ${c.reads} | ${ms(c.p50)} | ${ms(c.p99)} | ${ms(c.max)} |`)
    console.log(`| device access token | ${d.reads} | ${ms(d.p50)} | ${ms(d.p99)} | ${ms(d.max)} |`)
    console.log(
      `p50 ratio cookie / key: ${(c.p50 / k.p50).toFixed(2)}; device token / key: ${(d.p50 / k.p50).toFixed(2)}`,
    )
    const ar = summarizeReads(alone.reads)
    const fr = summarizeReads(flooded.reads)
    const as = summarizeReads(alone.signIns)
    const fs = summarizeReads(flooded.signIns)
    const aa = summarizeReads(alone.sameAddress)
    const fa = summarizeReads(flooded.sameAddress)
    const attempts = Object.values(statuses).reduce((sum, n) => sum + n, 0)
    console.log(
      `\nThe valid member on ${store}, ${FLOOD_TURNS} turns each way: ${FLOOD_READS} cookie reads, then ${FLOOD_SIGN_INS} password sign-ins`,
    )
    console.log('| What | n | p50 | p99 | max |\n|---|---|---|---|---|')
    console.log(`| read, alone | ${ar.reads} | ${ms(ar.p50)} | ${ms(ar.p99)} | ${ms(ar.max)} |`)
    console.log(`| read, during the flood | ${fr.reads} | ${ms(fr.p50)} | ${ms(fr.p99)} | ${ms(fr.max)} |`)
    console.log(`| password sign-in, alone | ${as.reads} | ${ms(as.p50)} | ${ms(as.p99)} | ${ms(as.max)} |`)
    console.log(
      `| password sign-in from another address, during the flood | ${fs.reads} | ${ms(fs.p50)} | ${ms(fs.p99)} | ${ms(fs.max)} |`,
    )
    console.log(
      `| password sign-in from the flood's address, alone | ${aa.reads} | ${ms(aa.p50)} | ${ms(aa.p99)} | ${ms(aa.max)} |`,
    )
    console.log(
      `| password sign-in from the flood's address, during the flood | ${fa.reads} | ${ms(fa.p50)} | ${ms(fa.p99)} | ${ms(fa.max)} |`,
    )
    console.log(
      `the member's sign-ins from the flood's address answered ${JSON.stringify(sameAddressAnswers)}`,
    )
    console.log(
      `flood: ${attempts} wrong passwords for the account and wrong keys with the prefix, from one address, ` +
        `${FLOOD_PARALLEL} in flight, ${Math.round(attempts / floodSeconds)} a second; answers ${JSON.stringify(statuses)}; ` +
        `p50 ratio read ${(fr.p50 / ar.p50).toFixed(2)}, sign-in from another address ${(fs.p50 / as.p50).toFixed(2)}, from the flood's ${(fa.p50 / aa.p50).toFixed(2)}; every read and other-address sign-in answered 200/201`,
    )
  } finally {
    await stopServer(child)
    rmSync(dataDir, { recursive: true, force: true })
  }
}

if (process.argv[2] === '--flood')
  await flood((worker) => wrongAttempt(process.argv[3]!, worker), FLOOD_PARALLEL)
else await main()
