import { randomBytes } from 'node:crypto'
import { DEFAULT_COST_LIMITS } from '@hearth/server'
import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { expectProblem, expectStatus, H } from './catalog-fixture.ts'

// A hundred previews back to back: no rest between these expensive calls, no yielding (the cost
// limits have their own test).
const server = useTestServer({ costLimits: { ...DEFAULT_COST_LIMITS, expensiveRestPercent: 0, yieldMs: 0 } })

async function setup() {
  const owner = await server.newOwner()
  const account = expectStatus(
    await owner.api.post(`${H}/accounts`, { name: 'Checking', type: 'cash', currency: 'EUR' }),
    201,
  )
  return { ...owner, account: account.id as string }
}

/** Sends `file` as a multipart upload of its bytes. */
async function upload(token: string, fields: Record<string, string | Blob>) {
  const form = new FormData()
  for (const [k, v] of Object.entries(fields)) form.append(k, v)
  const res = await fetch(`${server.url}${H}/imports/preview`, {
    method: 'POST',
    headers: { authorization: `Bearer ${token}` },
    body: form,
  })
  return { status: res.status, headers: res.headers, body: await res.json() }
}

describe('what an import refuses, with the code docs/errors.md gives', () => {
  it('answers IMPORT_FILE_TOO_LARGE for a file over 10 MiB sent as text, as it does for bytes', async () => {
    const { api, account } = await setup()
    const content = `Date,Amount\n${'x'.repeat(10 * 1024 * 1024)}`
    for (const path of ['/imports/preview', '/imports']) {
      const problem = expectProblem(
        await api.post(`${H}${path}`, { accountId: account, format: 'csv', content }),
        400,
        'IMPORT_FILE_TOO_LARGE',
      )
      expect(problem.detail).toContain('10485760')
    }
    // Counted in bytes, as a file is: 4 MiB of a three-byte character is 12 MiB.
    const wide = '€'.repeat(4 * 1024 * 1024)
    expectProblem(
      await api.post(`${H}/imports/preview`, { accountId: account, format: 'csv', content: wide }),
      400,
      'IMPORT_FILE_TOO_LARGE',
    )
  })

  it('reads random bytes sent as camt.053 as unreadable or binary, never as a file cut short', async () => {
    const { api, account } = await setup()
    for (let i = 0; i < 20; i++) {
      const bytes = randomBytes(2048)
      for (const encoding of ['auto', 'latin1', 'windows-1252', 'utf-8']) {
        const res = await api.post(`${H}/imports/preview`, {
          accountId: account,
          format: 'camt053',
          contentBase64: bytes.toString('base64'),
          encoding,
        })
        expect(res.status).toBe(400)
        expect(['IMPORT_FILE_BINARY', 'IMPORT_FILE_UNREADABLE'], res.body.code).toContain(res.body.code)
      }
      const up = await upload(api.token, {
        accountId: account,
        format: 'camt053',
        file: new Blob([bytes]),
      })
      expect(['IMPORT_FILE_BINARY', 'IMPORT_FILE_UNREADABLE']).toContain(up.body.code)
    }
    // Printable noise, and XML that is no camt.053 document, are unreadable; only a document
    // that opens and does not close was cut short.
    const noise = randomBytes(3000).toString('base64')
    for (const content of [noise, '<html><body>hi</body></html>', '<?xml version="1.0"?><a/>']) {
      expectProblem(
        await api.post(`${H}/imports/preview`, { accountId: account, format: 'camt053', content }),
        400,
        'IMPORT_FILE_UNREADABLE',
      )
    }
    expectProblem(
      await api.post(`${H}/imports/preview`, {
        accountId: account,
        format: 'camt053',
        content:
          '<?xml version="1.0"?><Document xmlns="urn:iso:std:iso:20022:tech:xsd:camt.053.001.02"><BkToCstmrStmt>',
      }),
      400,
      'IMPORT_FILE_TRUNCATED',
    )
  })
})
