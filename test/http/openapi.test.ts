import { createApp } from '@hearth/server'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { apiClient, useTestServer } from '../src/index.ts'

const server = useTestServer()

/** Routes that are plumbing rather than API: the document itself and the reference page. */
const UNDOCUMENTED = new Set([
  'GET /openapi.json',
  'GET /docs',
  'GET /docs/init.js',
  'GET /docs/assets/:file',
  // The household web app's files (docs/web.md), not part of the API.
  'GET /app',
  'GET /app/*',
  // The browser's round trip through the OpenID Connect provider: redirects, not API calls
  // (docs/api/sign-in.md).
  'GET /oidc/sign-in',
  'GET /oidc/callback',
])

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 and served without a key', async () => {
    const res = await apiClient(server.url, null).get('/openapi.json')
    expect(res.status).toBe(200)
    expect(res.body.openapi).toBe('3.1.0')
    expect(res.body.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' })
  })

  it('lists every route the app serves', async () => {
    const doc = (await apiClient(server.url, null).get('/openapi.json')).body
    const documented = new Set<string>()
    for (const [path, ops] of Object.entries<Record<string, unknown>>(doc.paths)) {
      for (const method of Object.keys(ops))
        documented.add(`${method.toUpperCase()} ${path.replace(/\{(\w+)\}/g, ':$1')}`)
    }
    const app = createApp({ store: server.store, logger: pino({ level: 'silent' }) })
    const served = new Set(
      app.routes
        .filter((r) => r.method !== 'ALL')
        .map((r) => `${r.method} ${r.path}`)
        .filter((r) => !UNDOCUMENTED.has(r)),
    )
    expect([...served].filter((r) => !documented.has(r))).toEqual([])
    expect(served.size).toBeGreaterThan(5)
  })

  it('names the scope of every authenticated operation', async () => {
    const doc = (await apiClient(server.url, null).get('/openapi.json')).body
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      for (const [method, op] of Object.entries<any>(ops)) {
        if (path === '/healthz' || path === '/readyz') continue
        if (
          [
            'sessions.create',
            'signInLinks.redeem',
            'signInLinks.passkeyOptions',
            'invitations.passkeyOptions',
            'sessions.passkeyOptions',
            'sessions.createWithPasskey',
            'devices.create',
            'devices.refresh',
            'oidc.provider',
            'emailVerifications.verify',
          ].includes(op.operationId)
        ) {
          // Signing in: the credential is in the body (a password, a passkey's answer, a link's or
          // an invitation's code, a mailed email verification link's code, a key to exchange, a device's refresh token), or comes back from
          // the OpenID Connect provider.
          expect(op.security).toEqual([{}])
          continue
        }
        if (path === '/invitations/redeem') {
          // A new user redeems without a key; a user who has one may send it to join as themselves.
          expect(op.security).toEqual([{}, { bearerAuth: [] }])
          continue
        }
        // The activity checks each entry against the caller's scopes rather than one scope of its
        // own: the read scopes of the rows it changed, and its operation's (docs/api/activity.md).
        const perEntry = ['activity.list', 'activity.undo'].includes(op.operationId)
        expect(op.description, `${method} ${path}`).toMatch(
          perEntry ? /Any valid API key may call it\./ : /Requires scope `[a-z:]+`/,
        )
        expect(op.security, `${method} ${path}`).toEqual([{ bearerAuth: [] }])
      }
    }
  })

  it('declares on every operation the request limit (429) and a store failover (503)', async () => {
    const doc = (await apiClient(server.url, null).get('/openapi.json')).body
    let checked = 0
    for (const [path, ops] of Object.entries<Record<string, any>>(doc.paths)) {
      if (path === '/healthz' || path === '/readyz') continue
      for (const [method, op] of Object.entries<any>(ops)) {
        expect(String(op.responses['429']?.description), `${method} ${path}`).toContain('`RATE_LIMITED`')
        expect(String(op.responses['503']?.description), `${method} ${path}`).toContain('`STORE_UNAVAILABLE`')
        const ref: string = op.responses['503'].content['application/problem+json'].schema.$ref
        expect(doc.components.schemas[ref.split('/').at(-1)!], ref).toBeDefined()
        checked++
      }
    }
    expect(checked).toBeGreaterThan(120)
    // A route's own 429 keeps its words beside the limit's.
    const chat = doc.paths['/households/{householdId}/ai/chat'].post.responses['429'].description
    expect(chat).toContain('`AI_CAP_REACHED`')
    expect(chat).toContain('`RATE_LIMITED`')
  })

  it('documents carryOverspending on category create and update bodies', async () => {
    const doc = (await apiClient(server.url, null).get('/openapi.json')).body
    const bodyOf = (op: any) => {
      let schema = op.requestBody.content['application/json'].schema
      while (schema.$ref) schema = doc.components.schemas[schema.$ref.split('/').at(-1)]
      return schema
    }
    const create = bodyOf(doc.paths['/households/{householdId}/categories'].post)
    const update = bodyOf(doc.paths['/households/{householdId}/categories/{categoryId}'].patch)
    expect(create.properties.carryOverspending).toMatchObject({ type: 'boolean' })
    expect(create.required ?? []).not.toContain('carryOverspending')
    expect(update.properties.carryOverspending).toMatchObject({ type: 'boolean' })
  })
})

describe('API reference page', () => {
  it('serves the page and its assets locally, so it works offline', async () => {
    const page = await fetch(`${server.url}/docs`)
    expect(page.status).toBe(200)
    const html = await page.text()
    const assets = [...html.matchAll(/(?:src|href)="([^"]+)"/g)].map((m) => m[1]!)
    expect(assets.length).toBeGreaterThan(2)
    for (const asset of assets) {
      expect(asset.startsWith('/'), `${asset} must be served locally`).toBe(true)
      const res = await fetch(`${server.url}${asset}`)
      expect(res.status, asset).toBe(200)
    }
  })

  it('calls no outside validator, and keeps the key in localStorage only when asked', async () => {
    const script = await (await fetch(`${server.url}/docs/init.js`)).text()
    const run = (search: string) => {
      const stored = new Map([['authorized', '{"bearerAuth":{}}']])
      let config: any
      const SwaggerUIBundle = Object.assign((c: unknown) => (config = c), { presets: { apis: {} } })
      const localStorage = { removeItem: (k: string) => stored.delete(k) }
      new Function(
        'window',
        'location',
        'localStorage',
        'SwaggerUIBundle',
        'SwaggerUIStandalonePreset',
        script,
      )({}, { search }, localStorage, SwaggerUIBundle, {})
      return { config, stored }
    }
    const plain = run('')
    expect(plain.config).toMatchObject({
      url: '/openapi.json',
      validatorUrl: null,
      persistAuthorization: false,
    })
    expect(plain.stored.has('authorized')).toBe(false)
    const remembered = run('?remember-key')
    expect(remembered.config).toMatchObject({ validatorUrl: null, persistAuthorization: true })
    expect(remembered.stored.has('authorized')).toBe(true)
  })

  it('reports health without a key', async () => {
    const res = await apiClient(server.url, null).get('/healthz')
    expect(res.status).toBe(200)
    expect(res.body.status).toBe('ok')
  })
})
