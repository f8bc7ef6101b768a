import { createHash } from 'node:crypto'
import { newUlid, operations, runMutation } from '@hearth/engine'
import type { TestMember } from './http-fixture.ts'

/**
 * A browser of a test, without a page: keeps the cookie the server sets and sends the server's
 * Origin on writes, as a browser on one of its pages does.
 */
export function cookieBrowser(url: string, origin?: string) {
  let cookie: string | undefined
  const request = async (
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ) => {
    const res = await fetch(`${url}${path}`, {
      method,
      headers: {
        ...(body !== undefined && { 'content-type': 'application/json' }),
        ...(method !== 'GET' && { origin: origin ?? url }),
        ...(cookie && { cookie }),
        ...headers,
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const set = res.headers.get('set-cookie')
    if (set) {
      const pair = set.split(';')[0]!
      cookie = pair.endsWith('=') ? undefined : pair
    }
    const text = await res.text()
    const parsed: any = text ? JSON.parse(text) : undefined
    return { status: res.status, headers: res.headers, body: parsed, setCookie: set }
  }
  return {
    request,
    get: (path: string) => request('GET', path),
    post: (path: string, body?: unknown, headers?: Record<string, string>) =>
      request('POST', path, body, headers),
    get cookie() {
      return cookie
    },
    set cookie(value: string | undefined) {
      cookie = value
    },
  }
}

/** A one-time setup link's code for `member`, as first start issues one. */
export async function issueSetupCode(
  store: { db: Parameters<typeof runMutation>[0] },
  member: TestMember,
): Promise<string> {
  const code = `hsl_${newUlid()}${newUlid()}`
  await runMutation(
    store.db,
    operations.signInLinks.issue,
    {
      id: newUlid(),
      purpose: 'setup',
      codeHash: createHash('sha256').update(code).digest('hex'),
      expiresAt: new Date(Date.now() + 3_600_000).toISOString(),
    },
    { userId: member.userId, scopes: [], now: new Date(Date.now() - 1000) },
  )
  return code
}
