import { type Store, zodIssuesToFieldErrors } from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { HTTPException } from 'hono/http-exception'
import { requestId } from 'hono/request-id'
import type { Logger } from 'pino'
import { authenticate } from './http/authenticate.ts'
import { limitBody } from './http/body-limit.ts'
import { allowOrigins } from './http/cors.ts'
import type { AppEnv } from './http/env.ts'
import { requireMembership } from './http/membership.ts'
import { mountOperationRoutes } from './http/operation-openapi.ts'
import { EngineError, engineProblem, problem } from './http/problem.ts'
import { accountRoutes } from './routes/accounts.ts'
import { ageOfMoneyRoutes } from './routes/age-of-money.ts'
import { budgetRoutes } from './routes/budgets.ts'
import { categoryRoutes } from './routes/categories.ts'
import { exchangeRateRoutes } from './routes/exchange-rates.ts'
import { flagRoutes } from './routes/flags.ts'
import { householdRoutes } from './routes/households.ts'
import { type AvailableChannels, notificationRoutes } from './routes/notifications.ts'
import { payeeRoutes } from './routes/payees.ts'
import { ruleRoutes } from './routes/rules.ts'
import { systemRoutes } from './routes/system.ts'
import { tagRoutes } from './routes/tags.ts'
import { transactionRoutes } from './routes/transactions.ts'
import { userRoutes } from './routes/users.ts'
import { type WebhookRouteOptions, webhookRoutes } from './routes/webhooks.ts'
import { secretBox } from './webhooks/secret-box.ts'

/** The reference's groups, in the order a reader meets them. */
const API_TAGS = [
  { name: 'System', description: 'Health and the API description itself.' },
  { name: 'Households', description: 'The household, its settings and its members.' },
  { name: 'Users', description: 'Your own profile and preferences.' },
  { name: 'API keys', description: 'Keys that act for you, each with its scopes.' },
  { name: 'Accounts', description: 'Cash, credit, loan and tracking accounts with their balances.' },
  {
    name: 'Transactions',
    description: 'Rows on accounts: splits, tags, flags, transfers, matching and imports.',
  },
  {
    name: 'Exchange rates',
    description: "Rates that convert other currencies to the household's base currency.",
  },
  { name: 'Categories', description: 'Category groups, categories and the starter pack.' },
  { name: 'Budgets', description: 'Envelope budgeting: months, assignments, moves, goals and age of money.' },
  { name: 'Rules', description: 'Rules that classify transactions, and their previews and back-fills.' },
  {
    name: 'Payees',
    description: 'Who money goes to or comes from, their aliases, merges and near-duplicates.',
  },
  { name: 'Tags', description: 'Free labels on transactions.' },
  { name: 'Flags', description: 'Coloured markers on transactions.' },
  { name: 'Notifications', description: 'Your notification feed and how you want to be told.' },
  { name: 'Webhooks', description: 'Signed deliveries of events to your endpoints, and their log.' },
  { name: 'Sync', description: 'HTTP fallbacks of the device sync protocol (docs/sync.md).' },
]

/** What the HTTP app needs from the running server. */
export interface AppOptions {
  store: Store
  logger: Logger
  bodyLimitBytes?: number
  /** Origins whose pages may call the API; any (`*`) by default. */
  corsOrigins?: '*' | readonly string[]
  /** How webhook secrets are sealed and URLs checked; secrets unencrypted and private targets refused by default. */
  webhooks?: WebhookRouteOptions
  /** The notification channels this server can send on; the feed alone by default. */
  notificationChannels?: AvailableChannels
}

/**
 * Builds the Hono app: request ids and logs, a body limit, bearer auth, household membership,
 * idempotency, every route, the OpenAPI document, and problem+json for every error.
 */
export function createApp({
  store,
  logger,
  bodyLimitBytes = 1024 * 1024,
  corsOrigins = '*',
  webhooks = { box: secretBox(undefined), guard: { allowPrivate: false } },
  notificationChannels = { channels: ['in_app'] },
}: AppOptions) {
  const app = new OpenAPIHono<AppEnv>({
    defaultHook: (result, c) => {
      if (!result.success) {
        return problem(c, 400, 'VALIDATION_FAILED', {
          detail: 'The request has invalid fields.',
          errors: zodIssuesToFieldErrors(result.error.issues),
        })
      }
    },
  })

  app.use(requestId())
  // First, so a preflight is answered before auth, and every answer (a refusal too) carries it.
  app.use(allowOrigins(corsOrigins))
  app.use(async function requestLog(c, next) {
    const started = performance.now()
    c.set('logger', logger.child({ requestId: c.get('requestId') }))
    await next()
    c.get('logger').info(
      {
        method: c.req.method,
        path: c.req.path,
        status: c.res.status,
        ms: Math.round(performance.now() - started),
      },
      'request',
    )
  })
  app.use(
    limitBody(bodyLimitBytes, (c) =>
      // The rest of the body stays unread, so the connection cannot be reused: say so.
      problem(c, 413, 'PAYLOAD_TOO_LARGE', {
        detail: `Request bodies are limited to ${bodyLimitBytes} bytes.`,
        headers: { connection: 'close' },
      }),
    ),
  )
  app.use(authenticate(store))
  app.use('/households/:householdId', requireMembership())
  app.use('/households/:householdId/*', requireMembership())

  app.route('/', systemRoutes(store))
  mountOperationRoutes(app, store, [
    ...householdRoutes,
    ...userRoutes,
    ...categoryRoutes,
    ...payeeRoutes,
    ...tagRoutes,
    ...flagRoutes,
    ...accountRoutes,
    ...transactionRoutes,
    ...exchangeRateRoutes,
    ...ageOfMoneyRoutes,
    ...budgetRoutes,
    ...ruleRoutes,
    ...webhookRoutes(webhooks),
    ...notificationRoutes(notificationChannels),
  ])

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description: 'An API key: `Authorization: Bearer <key>`.',
  })
  app.doc31('/openapi.json', () => ({
    openapi: '3.1.0',
    info: {
      title: 'Hearth API',
      version: '0.1.0',
      description:
        'Household finance, local-first. Errors are application/problem+json with a stable `code` ' +
        '(docs/errors.md). Every write accepts an Idempotency-Key header. Each operationId is the ' +
        "operation's name in the engine's registry, the same name the client SDK and sync use.",
      license: { name: 'MIT', identifier: 'MIT' },
    },
    servers: [{ url: '/', description: 'The server that serves this document.' }],
    tags: API_TAGS,
  }))

  app.notFound((c) =>
    problem(c, 404, 'ROUTE_NOT_FOUND', { detail: `No route for ${c.req.method} ${c.req.path}.` }),
  )
  app.onError((error, c) => {
    if (error instanceof EngineError) return engineProblem(c, error)
    if (error instanceof HTTPException) return httpProblem(c, error)
    c.get('logger')?.error({ err: error }, 'unhandled error')
    return problem(c, 500, 'INTERNAL', {
      detail: 'Something went wrong on our side. The request id helps us find it.',
    })
  })
  return app
}

/** Maps Hono's own refusals (bad JSON, wrong media type) to stable codes. */
function httpProblem(c: Parameters<typeof problem>[0], error: HTTPException): Response {
  if (error.status === 400 && /json/i.test(error.message)) {
    return problem(c, 400, 'MALFORMED_JSON', { detail: 'The request body is not valid JSON.' })
  }
  if (error.status === 415) {
    return problem(c, 415, 'UNSUPPORTED_MEDIA_TYPE', { detail: 'Send the body as application/json.' })
  }
  return problem(c, error.status, `HTTP_${error.status}`, { detail: error.message })
}
