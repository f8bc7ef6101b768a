import { DEFAULT_COST_LIMITS } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import { TEST_DATABASE_URL, useTestServer } from '../src/index.ts'

// Expensive calls (issue 38, item 3): a member runs one at a time; one that finds no place within
// the queue time (1 ms here, so the test needs no clock) is refused with 429 and Retry-After.
const server = useTestServer({
  databaseUrl: TEST_DATABASE_URL,
  costLimits: { ...DEFAULT_COST_LIMITS, expensiveQueueMs: 1 },
})

const READ_ONLY = ['read:households', 'read:accounts', 'read:transactions'] as const

describe('cost limits', { timeout: 120_000 }, () => {
  it('refuses a read-only member’s concurrent previews past one at a time, while the owner’s reads succeed', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const account = (await owner.api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body.id
    const reader = await server.newMember(owner, 'member', READ_ONLY)
    const file = { accountId: account, format: 'ofx', content: ofxFile(3000) }

    const previews = Promise.all(
      Array.from({ length: 4 }, () => reader.api.post(`${H}/imports/preview`, file)),
    )
    const ownerReads = Promise.all(Array.from({ length: 10 }, () => owner.api.get(`${H}/accounts`)))
    const readerRead = reader.api.get(`${H}/accounts`)
    const answers = await previews
    expect((await ownerReads).map((r) => r.status)).toEqual(Array(10).fill(200))
    expect((await readerRead).status).toBe(200)

    const refused = answers.filter((a) => a.status === 429)
    expect(answers.filter((a) => a.status === 200).length).toBeGreaterThanOrEqual(1)
    expect(refused.length).toBeGreaterThanOrEqual(1)
    expect(answers.every((a) => a.status === 200 || a.status === 429)).toBe(true)
    for (const r of refused) {
      expect(r.body.code).toBe('TOO_MANY_EXPENSIVE_REQUESTS')
      expect(r.headers.get('content-type')).toMatch(/^application\/problem\+json/)
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1)
    }
    // A refused preview ran nothing: the plan of the one that ran is whole.
    const ran = answers.find((a) => a.status === 200)!
    expect(ran.body.rows).toHaveLength(3000)
  })

  it('lets a member preview then commit the same file one after the other', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const account = (await owner.api.post(`${H}/accounts`, { name: 'Savings', type: 'cash' })).body.id
    const file = { accountId: account, format: 'ofx', content: ofxFile(2000) }
    const preview = await owner.api.post(`${H}/imports/preview`, file)
    expect(preview.status, JSON.stringify(preview.body)).toBe(200)
    // The household rests after the preview as long as it ran; the commit waits that out.
    const commit = await owner.api.post(`${H}/imports`, file)
    expect(commit.status, JSON.stringify(commit.body)).toBe(201)
  })

  it('refuses a cheap call of no one, and a long report counts as expensive in the reference', async () => {
    const owner = await server.newOwner()
    const H = `/households/${owner.householdId}`
    const short = await owner.api.get(`${H}/reports/cash-flow?fromMonth=2026-01&toMonth=2026-12`)
    expect(short.status).toBe(200)
    const long = await owner.api.get(`${H}/reports/cash-flow?fromMonth=2006-01&toMonth=2025-12`)
    expect(long.status).toBe(200)
    const doc = (await owner.api.get('/openapi.json')).body
    const refusals = (path: string, method: string) =>
      doc.paths[path][method].responses['429']?.description ?? ''
    expect(refusals('/households/{householdId}/imports/preview', 'post')).toContain(
      'TOO_MANY_EXPENSIVE_REQUESTS',
    )
    expect(refusals('/households/{householdId}/imports', 'post')).toContain('TOO_MANY_EXPENSIVE_REQUESTS')
    expect(refusals('/households/{householdId}/rules/apply-all', 'post')).toContain(
      'TOO_MANY_EXPENSIVE_REQUESTS',
    )
    expect(refusals('/households/{householdId}/reports/cash-flow', 'get')).toContain(
      'TOO_MANY_EXPENSIVE_REQUESTS',
    )
    expect(refusals('/households/{householdId}/accounts', 'get')).not.toContain('TOO_MANY_EXPENSIVE_REQUESTS')
  })
})

/** An OFX 1.02 file of `n` card rows. */
function ofxFile(n: number): string {
  const lines = ['OFXHEADER:100', 'DATA:OFXSGML', 'VERSION:102', '', '<OFX>', '<BANKMSGSRSV1>', '<STMTTRNRS>']
  lines.push('<STMTRS>', '<CURDEF>USD', '<BANKTRANLIST>')
  for (let i = 0; i < n; i++) {
    lines.push(
      '<STMTTRN>',
      '<TRNTYPE>DEBIT',
      `<DTPOSTED>202611${String(1 + (i % 28)).padStart(2, '0')}`,
      `<TRNAMT>-${1 + (i % 90)}.${String(i % 100).padStart(2, '0')}`,
      `<FITID>cost-${i}`,
      `<NAME>SHOP ${1000 + (i % 97)}`,
      '</STMTTRN>',
    )
  }
  lines.push('</BANKTRANLIST>', '</STMTRS>', '</STMTTRNRS>', '</BANKMSGSRSV1>', '</OFX>')
  return lines.join('\r\n')
}
