import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ProblemSchema } from '@hearth/contracts'
import type { Store } from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { sql } from 'kysely'
import type { AppEnv } from '../http/env.ts'
import { docsPageSecurity } from '../http/page-security.ts'
import { problem } from '../http/problem.ts'

/**
 * Why a write would not be accepted now, or null when it would: a pooled connection opens (on a
 * cluster, only on a primary) and is not read-only. Never throws.
 */
async function notWritable(store: Store): Promise<string | null> {
  try {
    if (store.kind !== 'postgres') {
      await sql`select 1`.execute(store.db)
      return null
    }
    const { rows } = await sql<{ readOnly: boolean }>`
      select pg_is_in_recovery() or current_setting('transaction_read_only') = 'on' as "readOnly"
    `.execute(store.db)
    return rows[0]?.readOnly === false ? null : 'the connection is read-only'
  } catch (error) {
    return (error as Error).message
  }
}

const swaggerDir = join(createRequire(import.meta.url).resolve('swagger-ui-dist/package.json'), '..')

/** The reference page's assets, served from the installed package so /docs works offline. */
const DOC_ASSETS: Record<string, string> = {
  'swagger-ui.css': 'text/css; charset=utf-8',
  'swagger-ui-bundle.js': 'text/javascript; charset=utf-8',
  'swagger-ui-standalone-preset.js': 'text/javascript; charset=utf-8',
  'favicon-32x32.png': 'image/png',
}

const DOCS_HTML = `<!doctype html>
<html lang="en">
<head>
  <meta charset="utf-8">
  <title>Hearth API reference</title>
  <link rel="icon" href="/docs/assets/favicon-32x32.png">
  <link rel="stylesheet" href="/docs/assets/swagger-ui.css">
</head>
<body>
  <div id="reference"></div>
  <script src="/docs/assets/swagger-ui-bundle.js"></script>
  <script src="/docs/assets/swagger-ui-standalone-preset.js"></script>
  <script src="/docs/init.js"></script>
</body>
</html>`

/**
 * No outside validator (Swagger UI's default sends the document to validator.swagger.io, which
 * fails offline and on private hosts), and the key is kept in localStorage only when the reader
 * asks with `/docs?remember-key`; otherwise a key remembered before is forgotten.
 */
const DOCS_INIT = `var rememberKey = new URLSearchParams(location.search).has('remember-key');
if (!rememberKey) { try { localStorage.removeItem('authorized'); } catch (e) {} }
window.ui = SwaggerUIBundle({
  url: '/openapi.json',
  dom_id: '#reference',
  deepLinking: true,
  validatorUrl: null,
  persistAuthorization: rememberKey,
  presets: [SwaggerUIBundle.presets.apis, SwaggerUIStandalonePreset],
  layout: 'StandaloneLayout'
});`

const healthz = createRoute({
  method: 'get',
  path: '/healthz',
  operationId: 'system.health',
  tags: ['System'],
  summary: 'Liveness and store health',
  description: 'No key needed. 503 when the store does not answer.',
  security: [],
  request: { query: z.strictObject({}) },
  responses: {
    200: {
      description: 'Healthy.',
      content: { 'application/json': { schema: z.object({ status: z.literal('ok'), store: z.string() }) } },
    },
    400: {
      description: 'A query parameter was sent; this route takes none (`VALIDATION_FAILED`).',
      content: { 'application/problem+json': { schema: ProblemSchema } },
    },
    503: {
      description: 'The store does not answer (`STORE_UNAVAILABLE`).',
      content: { 'application/problem+json': { schema: ProblemSchema } },
    },
  },
})

const readyz = createRoute({
  method: 'get',
  path: '/readyz',
  operationId: 'system.ready',
  tags: ['System'],
  summary: 'Readiness: this instance can write',
  description:
    'No key needed. 200 when this instance can write to its store now (on PostgreSQL, its ' +
    'connection lands on a primary), 503 otherwise, as during a failover. The answer is ' +
    'cached for a second, so a load balancer may poll it often. `/healthz` is liveness.',
  security: [],
  request: { query: z.strictObject({}) },
  responses: {
    200: {
      description: 'Ready: writes are accepted.',
      content: {
        'application/json': { schema: z.object({ status: z.literal('ready'), store: z.string() }) },
      },
    },
    400: {
      description: 'A query parameter was sent; this route takes none (`VALIDATION_FAILED`).',
      content: { 'application/problem+json': { schema: ProblemSchema } },
    },
    503: {
      description: 'The store cannot take writes now (`STORE_UNAVAILABLE`).',
      content: { 'application/problem+json': { schema: ProblemSchema } },
    },
  },
})

/** How long a readiness answer is reused. */
const READY_CACHE_MS = 1_000

/** Health, readiness, and the API reference page with its local assets. */
export function systemRoutes(store: Store) {
  const app = new OpenAPIHono<AppEnv>()
  let ready: { at: number; answer: Promise<boolean> } | null = null
  const canWrite = (logger: AppEnv['Variables']['logger'] | undefined) => {
    const now = Date.now()
    if (!ready || now - ready.at > READY_CACHE_MS) {
      ready = {
        at: now,
        // Why is said in the log, once per check: the answer itself names no host.
        answer: notWritable(store).then((reason) => {
          if (reason) logger?.warn({ reason }, 'not ready: the store cannot take writes')
          return reason === null
        }),
      }
    }
    return ready.answer
  }
  app.openapi(readyz, async (c) => {
    if (!(await canWrite(c.get('logger')))) {
      return problem(c, 503, 'STORE_UNAVAILABLE', {
        detail: 'The database cannot take writes from this instance now.',
        headers: { 'retry-after': '1' },
      }) as never
    }
    return c.json({ status: 'ready' as const, store: store.kind }, 200)
  })
  app.openapi(healthz, async (c) => {
    try {
      await sql`select 1`.execute(store.db)
    } catch {
      return problem(c, 503, 'STORE_UNAVAILABLE', { detail: 'The database does not answer.' }) as never
    }
    return c.json({ status: 'ok' as const, store: store.kind }, 200)
  })
  app.use('/docs', docsPageSecurity())
  app.use('/docs/*', docsPageSecurity())
  app.get('/docs', (c) => c.html(DOCS_HTML))
  app.get('/docs/init.js', (c) =>
    c.body(DOCS_INIT, 200, { 'content-type': 'text/javascript; charset=utf-8' }),
  )
  app.get('/docs/assets/:file', async (c) => {
    const file = c.req.param('file')
    const type = DOC_ASSETS[file]
    if (!type) return problem(c, 404, 'ROUTE_NOT_FOUND', { detail: `No asset ${file}.` })
    return c.body(await readFile(join(swaggerDir, file)), 200, {
      'content-type': type,
      'cache-control': 'public, max-age=86400',
    })
  })
  return app
}
