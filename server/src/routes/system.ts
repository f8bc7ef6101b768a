import { readFile } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { join } from 'node:path'
import { ProblemSchema } from '@hearth/contracts'
import type { Store } from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { sql } from 'kysely'
import type { AppEnv } from '../http/env.ts'
import { problem } from '../http/problem.ts'

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

/** Health, and the API reference page with its local assets. */
export function systemRoutes(store: Store) {
  const app = new OpenAPIHono<AppEnv>()
  app.openapi(healthz, async (c) => {
    try {
      await sql`select 1`.execute(store.db)
    } catch {
      return problem(c, 503, 'STORE_UNAVAILABLE', { detail: 'The database does not answer.' }) as never
    }
    return c.json({ status: 'ok' as const, store: store.kind }, 200)
  })
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
