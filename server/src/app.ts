import type { IncomingMessage } from 'node:http'
import { type Store, zodIssuesToFieldErrors } from '@hearth/engine'
import { isStoreUnavailable } from '@hearth/engine/node'
import { OpenAPIHono } from '@hono/zod-openapi'
import { HTTPException } from 'hono/http-exception'
import { requestId } from 'hono/request-id'
import type { Logger } from 'pino'
import { assistantStreamRoutes } from './ai/chat-route.ts'
import { type AiConfig, loadAiConfig } from './ai/config.ts'
import { createProvider } from './ai/providers.ts'
import { EmailVerifier } from './auth/email-verification.ts'
import { FailedPasswordAlerts } from './auth/failed-password-alerts.ts'
import { OidcFlow } from './auth/oidc-flow.ts'
import type { OidcSettings } from './auth/oidc-settings.ts'
import {
  DEFAULT_PASSWORD_CHECK_LIMITS,
  type PasswordCheckLimits,
  passwordHashGates,
} from './auth/password-sign-in.ts'
import { DEFAULT_SESSION_SETTINGS, type SessionSettings } from './auth/session-settings.ts'
import { signInMailer } from './auth/sign-in-mail.ts'
import { accountBackoff } from './auth/sign-in-throttle.ts'
import { type BankSyncSettings, defaultBankSyncSettings } from './banks/bank-sync.ts'
import { authenticate } from './http/authenticate.ts'
import { limitBody } from './http/body-limit.ts'
import { ClientAddresses } from './http/client-address.ts'
import { allowOrigins } from './http/cors.ts'
import { CostLimiter, type CostLimits, DEFAULT_COST_LIMITS } from './http/cost-limits.ts'
import type { AppEnv } from './http/env.ts'
import { refuseMalformedPath } from './http/malformed-path.ts'
import { requireMembership } from './http/membership.ts'
import { methodsAllowed } from './http/method-not-allowed.ts'
import { mountOperationRoutes } from './http/operation-openapi.ts'
import { EngineError, engineProblem, problem } from './http/problem.ts'
import {
  AuthFailures,
  DEFAULT_RATE_LIMITS,
  limitFailedAuth,
  limitPerKey,
  type RateLimits,
  resolveClientAddress,
} from './http/rate-limits.ts'
import { type AnswerSeal, answerSeal } from './http/sealed-answers.ts'
import { withSharedAnswers } from './http/shared-answers.ts'
import { mcpRoutes } from './mcp/mcp-route.ts'
import { accountRoutes } from './routes/accounts.ts'
import { activityRoutes } from './routes/activity.ts'
import { ageOfMoneyRoutes } from './routes/age-of-money.ts'
import { assistantRoutes } from './routes/assistant.ts'
import { bankConnectionRoutes } from './routes/bank-connections.ts'
import { budgetRoutes } from './routes/budgets.ts'
import { categoryRoutes } from './routes/categories.ts'
import { deviceRoutes } from './routes/devices.ts'
import { emailVerificationRoutes } from './routes/email-verifications.ts'
import { exchangeRateRoutes } from './routes/exchange-rates.ts'
import { flagRoutes } from './routes/flags.ts'
import { forecastRoutes } from './routes/forecasts.ts'
import { householdRoutes } from './routes/households.ts'
import { IMPORT_BODY_BYTES, IMPORT_PATH, importRoutes } from './routes/imports.ts'
import { invitationRoutes } from './routes/invitations.ts'
import { loanRoutes } from './routes/loans.ts'
import { type AvailableChannels, notificationRoutes } from './routes/notifications.ts'
import { oidcRoutes } from './routes/oidc.ts'
import { passkeyRoutes } from './routes/passkeys.ts'
import { payeeRoutes } from './routes/payees.ts'
import { recurrenceRoutes } from './routes/recurrences.ts'
import { reportRoutes } from './routes/reports.ts'
import { ruleRoutes } from './routes/rules.ts'
import { secondFactorRoutes } from './routes/second-factors.ts'
import { sessionRoutes } from './routes/sessions.ts'
import { signInLinkRoutes } from './routes/sign-in-links.ts'
import { systemRoutes } from './routes/system.ts'
import { tagRoutes } from './routes/tags.ts'
import { transactionRoutes } from './routes/transactions.ts'
import { userRoutes } from './routes/users.ts'
import { webAppRoutes } from './routes/web-app.ts'
import { type WebhookRouteOptions, webhookRoutes } from './routes/webhooks.ts'
import { secretBox } from './webhooks/secret-box.ts'

/** The reference's groups, in the order a reader meets them. */
const API_TAGS = [
  { name: 'System', description: 'Health and the API description itself.' },
  { name: 'Households', description: 'The household, its settings and its members.' },
  { name: 'Users', description: 'Your own profile and preferences.' },
  { name: 'API keys', description: 'Keys that act for you, each with its scopes.' },
  {
    name: 'Sign-in',
    description:
      'Passwords, sessions of the web app (a cookie), setup and reset links (docs/api/sign-in.md).',
  },
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
    name: 'Recurrences',
    description: 'Recurring schedules, what is coming, and detected recurring charges and price changes.',
  },
  { name: 'Forecasts', description: "A month's projected spending per category." },
  { name: 'Reports', description: 'Net worth, cash flow, spending and age of money, for charts.' },
  {
    name: 'Imports',
    description: 'Bank files (OFX, QFX, CSV, camt.053): preview, commit as one batch, undo.',
  },
  {
    name: 'Payees',
    description: 'Who money goes to or comes from, their aliases, merges and near-duplicates.',
  },
  { name: 'Tags', description: 'Free labels on transactions.' },
  { name: 'Flags', description: 'Coloured markers on transactions.' },
  { name: 'Assistant', description: 'Streamed chat, conversations, confirmable actions, usage and tools.' },
  { name: 'Notifications', description: 'Your notification feed and how you want to be told.' },
  { name: 'Webhooks', description: 'Signed deliveries of events to your endpoints, and their log.' },
  {
    name: 'Bank connections',
    description: 'Accounts that update themselves through SimpleFIN Bridge: connect, link, sync.',
  },
  { name: 'Activity', description: 'Who changed what in the household, before and after, and undo.' },
  { name: 'Sync', description: 'HTTP fallbacks of the device sync protocol (docs/sync.md).' },
  {
    name: 'Notes',
    description:
      'Shared notes on accounts, categories, budget months and transactions: plain text here, live Yjs editing over /notes/ws (docs/api/notes.md).',
  },
]

/** What the HTTP app needs from the running server. */
export interface AppOptions {
  store: Store
  logger: Logger
  bodyLimitBytes?: number
  /** Origins whose pages may call the API; any (`*`) by default. */
  corsOrigins?: '*' | readonly string[]
  /** Rate limits; the defaults otherwise. */
  rateLimits?: RateLimits
  /** How many expensive calls run at once (cost-limits.ts); the defaults otherwise. */
  costLimits?: CostLimits
  /** Password checks at once per client address and per account (password-sign-in.ts); the defaults otherwise. */
  passwordChecks?: PasswordCheckLimits
  /** The failed-authentication counters, when the sync socket shares them. */
  authFailures?: AuthFailures
  /** Where a request comes from: its peer, or what a trusted proxy forwarded; the peer by default. */
  clientAddresses?: ClientAddresses
  /** The assistant's provider and caps; the offline provider with default caps when omitted. */
  ai?: AiConfig
  /** How webhook secrets are sealed and URLs checked; secrets unencrypted and private targets refused by default. */
  webhooks?: WebhookRouteOptions
  /** How bank connections reach their provider; SimpleFIN on public addresses with no secret key by default. */
  banks?: BankSyncSettings
  /** The notification channels this server can send on; the feed alone by default. */
  notificationChannels?: AvailableChannels
  /** Seals the secrets of stored idempotent answers; under a key of this process only by default. */
  answers?: AnswerSeal
  /** Session lifetimes and cookie settings; the defaults otherwise. */
  sessions?: SessionSettings
  /** Sign-in with an OpenID Connect provider; none by default. */
  oidc?: OidcSettings
  /** Where reset and email verification links are mailed from; none by default (links are only handed over, emails stay unverified). */
  smtp?: { url?: string; from: string }
  /** When a person is told of wrong passwords tried for their account (5 in 15 minutes by default). */
  failedPasswordAlerts?: FailedPasswordAlerts
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
  rateLimits = DEFAULT_RATE_LIMITS,
  costLimits = DEFAULT_COST_LIMITS,
  passwordChecks = DEFAULT_PASSWORD_CHECK_LIMITS,
  authFailures = new AuthFailures(rateLimits),
  clientAddresses = new ClientAddresses(),
  ai,
  webhooks = { box: secretBox(undefined), guard: { allowPrivate: false } },
  banks = defaultBankSyncSettings(webhooks),
  notificationChannels = { channels: ['in_app'] },
  answers = answerSeal(undefined),
  sessions = DEFAULT_SESSION_SETTINGS,
  oidc,
  smtp,
  failedPasswordAlerts = new FailedPasswordAlerts(),
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
  app.use(resolveClientAddress(clientAddresses))
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
  // Every request counts as in flight from here, so expensive calls hold back for it.
  const costs = new CostLimiter(costLimits)
  app.use(costs.track)
  const limitTo = (bytes: number) =>
    limitBody(bytes, (c) =>
      // The rest of the body stays unread, so the connection cannot be reused: say so.
      problem(c, 413, 'PAYLOAD_TOO_LARGE', {
        detail: `Request bodies are limited to ${bytes} bytes.`,
        headers: { connection: 'close' },
      }),
    )
  const standardLimit = limitTo(bodyLimitBytes)
  // A bank file travels in the body: imports take the engine's largest file, base64 included.
  const fileLimit = limitTo(Math.max(bodyLimitBytes, IMPORT_BODY_BYTES))
  app.use((c, next) => (IMPORT_PATH.test(c.req.path) ? fileLimit(c, next) : standardLimit(c, next)))
  app.use(refuseMalformedPath())
  app.use(limitFailedAuth(authFailures))
  app.use(authenticate(store, { corsOrigins }))
  app.use(limitPerKey(rateLimits))
  app.use('/households/:householdId', requireMembership())
  app.use('/households/:householdId/*', requireMembership())

  app.route('/', systemRoutes(store))
  app.route('/', webAppRoutes())
  app.route('/', mcpRoutes(store))
  const aiConfig = ai ?? loadAiConfig({})
  app.route(
    '/',
    assistantStreamRoutes({ store, provider: createProvider(aiConfig.provider), caps: aiConfig.caps }),
  )
  const mailer = signInMailer(smtp)
  const emailVerifier = new EmailVerifier(store, sessions, mailer)
  app.route('/', invitationRoutes(store, sessions, corsOrigins, emailVerifier))
  const signIn = {
    store,
    settings: sessions,
    authFailures,
    corsOrigins,
    byAccount: accountBackoff(),
    hashGates: passwordHashGates(passwordChecks),
    oidcRequired: oidc?.required ?? false,
    box: webhooks.box,
    failedPasswordAlerts,
    notificationChannels: notificationChannels.channels,
  }
  app.route('/', sessionRoutes(signIn))
  app.route('/', deviceRoutes(signIn))
  app.route(
    '/',
    oidcRoutes({
      store,
      settings: sessions,
      flow: oidc && new OidcFlow(oidc, sessions),
      // An email the server could have verified links an identity only once it is verified.
      linkOnlyVerifiedEmail: mailer !== null,
    }),
  )
  app.route('/', secondFactorRoutes({ store, box: webhooks.box }))
  app.route('/', passkeyRoutes(signIn))
  app.route('/', emailVerificationRoutes({ store, authFailures, corsOrigins, verifier: emailVerifier }))
  app.route('/', signInLinkRoutes({ ...signIn, mailer, emailVerifier }))
  mountOperationRoutes(
    app,
    store,
    [
      ...householdRoutes,
      ...userRoutes,
      ...categoryRoutes,
      ...payeeRoutes,
      ...tagRoutes,
      ...flagRoutes,
      ...accountRoutes,
      ...loanRoutes,
      ...transactionRoutes,
      ...exchangeRateRoutes,
      ...ageOfMoneyRoutes,
      ...budgetRoutes,
      ...ruleRoutes,
      ...recurrenceRoutes,
      ...forecastRoutes,
      ...reportRoutes,
      ...assistantRoutes,
      ...importRoutes,
      ...webhookRoutes(webhooks),
      ...bankConnectionRoutes({ store, settings: banks }),
      ...notificationRoutes(notificationChannels),
      ...activityRoutes,
    ],
    answers,
    costs,
  )

  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerAuth', {
    type: 'http',
    scheme: 'bearer',
    description:
      'An API key: `Authorization: Bearer <key>`. The web app sends its session cookie instead (`POST /sessions`, docs/api/sign-in.md).',
  })
  app.get('/openapi.json', (c) => c.json(withSharedAnswers(app.getOpenAPI31Document(DOCUMENT))))

  const allowed = methodsAllowed(app.routes)
  app.notFound((c) => {
    const methods = allowed(c.req.path)
    if (methods.length > 0) {
      return problem(c, 405, 'METHOD_NOT_ALLOWED', {
        detail: `${c.req.path} does not take ${c.req.method}; it takes ${methods.join(', ')}.`,
        headers: { allow: methods.join(', ') },
      })
    }
    return problem(c, 404, 'ROUTE_NOT_FOUND', { detail: `No route for ${c.req.method} ${c.req.path}.` })
  })
  app.onError((error, c) => {
    if (error instanceof EngineError) return engineProblem(c, error)
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
    if (incoming?.readableAborted) {
      // The client went away mid-body (or the request timeout cut it): nothing of ours failed.
      c.get('logger')?.info({ reason: (error as Error).message }, 'request body aborted')
      return problem(c, 400, 'REQUEST_ABORTED', { detail: 'The request body did not arrive whole.' })
    }
    if (error instanceof HTTPException) return httpProblem(c, error)
    if (isStoreUnavailable(error)) {
      // A failover or restart of PostgreSQL: nothing was acknowledged, and a retry soon succeeds.
      c.get('logger')?.warn({ err: error }, 'store unavailable')
      return problem(c, 503, 'STORE_UNAVAILABLE', {
        detail: 'The database cannot take this request just now (a failover or restart); retry shortly.',
        headers: { 'retry-after': String(STORE_RETRY_AFTER_SECONDS) },
      })
    }
    c.get('logger')?.error({ err: error }, 'unhandled error')
    return problem(c, 500, 'INTERNAL', {
      detail: 'Something went wrong on our side. The request id helps us find it.',
    })
  })
  return app
}

/** How long a client is asked to wait when the store is unavailable (a failover takes seconds). */
const STORE_RETRY_AFTER_SECONDS = 2

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

/** The OpenAPI document's own parts; the routes add the rest. */
const DOCUMENT = {
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
}
