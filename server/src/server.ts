import type { AddressInfo } from 'node:net'
import {
  type EventEnvelope,
  fanOutEvents,
  maintainStore,
  migrateToLatest,
  type NotificationChannel,
  notificationSendTopic,
  OutboxWorker,
  type Store,
} from '@hearth/engine'
import { openStore } from '@hearth/engine/node'
import { serve } from '@hono/node-server'
import { sql } from 'kysely'
import pino, { type Logger } from 'pino'
import { createApp } from './app.ts'
import { resealTotpSecrets } from './auth/second-factor.ts'
import { defaultBankSyncSettings } from './banks/bank-sync.ts'
import { resealBankAccess } from './banks/reseal-access.ts'
import { type Bootstrap, bootstrapOwner } from './bootstrap.ts'
import { type ForwardedAnswer, type ForwardedCommand, serveControlSocket } from './cli/control-socket.ts'
import { runCli } from './cli/run-cli.ts'
import type { ServerConfig } from './config.ts'
import { warnIfNotDurable } from './durability-check.ts'
import { ClientAddresses } from './http/client-address.ts'
import { AuthFailures } from './http/rate-limits.ts'
import { answerSeal } from './http/sealed-answers.ts'
import { JobRunner } from './jobs/job-runner.ts'
import { serverJobs } from './jobs/server-jobs.ts'
import { availableChannels, notificationSender } from './notifications/channels.ts'
import { notifyMembers } from './notifications/notify-members.ts'
import { attachSync } from './sync/attach-sync.ts'
import { WebhookDispatcher } from './webhooks/dispatcher.ts'
import { resealWebhookSecrets } from './webhooks/reseal-secrets.ts'
import { secretBox } from './webhooks/secret-box.ts'

/** A running server and how to stop it. */
export interface RunningServer {
  url: string
  port: number
  store: Store
  logger: Logger
  /** Set when this start created the first owner; holds the one copy of their key. */
  bootstrap: Bootstrap | null
  worker: OutboxWorker
  /** Sends webhook deliveries. */
  dispatcher: WebhookDispatcher
  /** The periodic work; `runNow` runs one job outside its schedule. */
  jobs: JobRunner
  close(): Promise<void>
}

/** New deliveries after which an embedded store's statistics on them are refreshed. */
const ANALYZE_AFTER_DELIVERIES = 2000
/**
 * Starts Hearth: opens (and locks) the store, migrates it, creates the first owner on an empty
 * store, starts the outbox worker and the job runner, and listens. `store` lets tests share an
 * open store.
 */
export async function startServer(
  config: ServerConfig,
  options: { store?: Store; logger?: Logger } = {},
): Promise<RunningServer> {
  const logger = options.logger ?? pino({ level: config.logLevel })
  const ownsStore = !options.store
  const store =
    options.store ??
    (await openStore({
      databaseUrl: config.databaseUrl,
      dataDir: config.dataDir,
      durable: config.durability,
      onConnectionLost: (error) =>
        logger.warn({ err: error }, 'PostgreSQL ended an idle connection; the next query opens another'),
    }))
  try {
    const applied = await migrateToLatest(store.db)
    if (applied.length > 0) logger.info({ migrations: applied }, 'migrated')
  } catch (error) {
    if (ownsStore) await store.close()
    throw error
  }
  await warnIfNotDurable(store, logger, config)
  const bootstrap = ownsStore
    ? await bootstrapOwner(store, config.initOwnerToken, {
        currency: config.initCurrency,
        timeZone: config.initTimeZone,
      })
    : null
  // A restarted embedded store plans with fresh statistics from its first request.
  if (ownsStore) await maintainStore(store)

  const channels: NotificationChannel[] = availableChannels(config.notifications)
  const box = secretBox(config.webhooks.secretKey, config.webhooks.previousSecretKey)
  // Said once per process, and only where it matters: a webhook exists, or one is made.
  let warned = false
  const warnUnencrypted = () => {
    if (box.encrypted || warned) return
    warned = true
    logger.warn('HEARTH_WEBHOOK_SECRET_KEY is not set: webhook signing secrets are stored unencrypted')
  }
  if (!box.encrypted) {
    const any = await store.db.selectFrom('webhook_subscriptions').select('id').limit(1).executeTakeFirst()
    if (any) warnUnencrypted()
  }
  const resealed = await resealWebhookSecrets(store, box)
  if (resealed > 0)
    logger.info({ subscriptions: resealed }, 'webhook secrets sealed again under the current key')
  const resealedTotp = await resealTotpSecrets(store, box)
  if (resealedTotp > 0)
    logger.info({ factors: resealedTotp }, 'TOTP secrets sealed again under the current key')
  const resealedAccess = await resealBankAccess(store, box)
  if (resealedAccess > 0)
    logger.info({ connections: resealedAccess }, 'bank connection access sealed again under the current key')
  const guard = { allowPrivate: config.webhooks.allowPrivate, lookup: config.webhooks.lookup }
  const dispatcher = new WebhookDispatcher(store, {
    box,
    guard,
    logger,
    timeoutMs: config.webhooks.timeoutMs,
    ...(config.webhooks.retryScheduleMs && { retryScheduleMs: config.webhooks.retryScheduleMs }),
  })
  dispatcher.start()
  let madeSinceAnalyze = 0
  const worker = new OutboxWorker(store.db, {
    handlers: {},
    batchHandlers: {
      // Each event becomes one delivery per subscription that wants it; the dispatcher sends them.
      // A batch of events fans out in two statements, and reads each household's thresholds once.
      event: async (items) => {
        const events = items.map((item) => item.payload as unknown as EventEnvelope)
        const made = await fanOutEvents(store.db, events)
        if (made > 0) dispatcher.poke()
        // PGlite runs no autovacuum: after a burst, fresh statistics keep the claims and records
        // on their indexes rather than scanning every pending delivery each time.
        madeSinceAnalyze += made
        if (madeSinceAnalyze >= ANALYZE_AFTER_DELIVERIES && store.kind === 'pglite') {
          madeSinceAnalyze = 0
          await sql`analyze webhook_deliveries`.execute(store.db)
        }
        const thresholds = new Map<string, Promise<string | null>>()
        for (const event of events) await notifyMembers(store, event, channels, thresholds)
      },
    },
    batchSize: 100,
    onError: (err, item) => logger.error({ err, outboxId: item?.id }, 'outbox item failed'),
  })
  worker.start()
  // Email and push have a worker of their own, so a slow mail server never holds up events.
  const sender = new OutboxWorker(store.db, {
    handlers: Object.fromEntries(
      channels
        .filter((c) => c !== 'in_app')
        .map((c) => [notificationSendTopic(c), notificationSender(store, config.notifications, guard)]),
    ),
    onError: (err, item) => logger.error({ err, outboxId: item?.id }, 'notification send failed'),
  })
  sender.start()
  const banks = defaultBankSyncSettings({ box, guard }, config.banks)
  const jobs = new JobRunner({
    store,
    logger,
    jobs: serverJobs(store, {
      logWindowDays: config.syncLogWindowDays,
      activityRetentionDays: config.activityRetentionDays,
      backups: config.backups,
      banks,
    }),
  })
  jobs.start()

  const authFailures = new AuthFailures(config.rateLimits)
  const clientAddresses = new ClientAddresses(config.trustedProxies)
  const app = createApp({
    store,
    logger,
    bodyLimitBytes: config.bodyLimitBytes,
    corsOrigins: config.corsOrigins,
    rateLimits: config.rateLimits,
    costLimits: config.costLimits,
    passwordChecks: config.passwordChecks,
    authFailures,
    clientAddresses,
    ai: config.ai,
    webhooks: { box, guard, warnUnencrypted },
    banks,
    answers: answerSeal(config.webhooks.secretKey, config.webhooks.previousSecretKey),
    notificationChannels: { channels, vapidPublicKey: config.notifications.vapid?.publicKey },
    sessions: config.sessions,
    oidc: config.oidc,
    smtp: { url: config.notifications.smtpUrl, from: config.notifications.smtpFrom },
  })
  const server = await new Promise<ReturnType<typeof serve>>((resolve, reject) => {
    const s = serve(
      {
        fetch: app.fetch,
        port: config.port,
        hostname: config.host,
        // A request, body included, must arrive within the timeout: a slow or stalled body is
        // cut rather than holding a connection and its buffers.
        serverOptions: {
          requestTimeout: config.requestTimeoutMs,
          connectionsCheckingInterval: Math.min(5_000, Math.ceil(config.requestTimeoutMs / 2)),
          // An idle connection is kept 30 s (Node's default is 5 s), and the answers say so. A
          // client that reuses a connection just as the server closes it gets ECONNRESET on a
          // request that may have been a write; clients that read the Keep-Alive hint close theirs
          // first, and the longer window makes the race rare for a client whose timers run late.
          keepAliveTimeout: 30_000,
        },
      },
      () => resolve(s),
    )
    s.once('error', reject)
  })
  attachSync({
    server,
    app,
    store,
    logger,
    databaseUrl: config.databaseUrl,
    limits: config.syncLimits,
    authFailures,
    clientAddresses,
    pushesPerSecond: config.rateLimits.pushesPerSecond,
    pageRows: config.syncPageRows,
    corsOrigins: config.corsOrigins,
  })
  const port = (server.address() as AddressInfo).port
  const url = `http://${config.host.includes(':') ? `[${config.host}]` : config.host}:${port}`
  // The CLI reaches a folder this server holds through its control socket (docs: README, Command line).
  const stopControl =
    ownsStore && store.kind === 'pglite' && config.dataDir !== 'memory://' && !config.databaseUrl
      ? await serveControlSocket(config.dataDir, (command) => runForwarded(command, store))
      : null
  logger.info({ url, store: store.kind, location: store.location }, 'listening')

  let closing: Promise<void> | null = null
  return {
    url,
    port,
    store,
    logger,
    bootstrap,
    worker,
    dispatcher,
    jobs,
    close() {
      closing ??= (async () => {
        // No job starts from here on; one in flight is awaited before the store closes.
        const jobsStopped = jobs.stop()
        // Stop taking requests, let in-flight ones finish, then drop idle keep-alive sockets.
        const drained = new Promise<void>((resolve) => server.close(() => resolve()))
        if ('closeIdleConnections' in server) server.closeIdleConnections()
        const timeout = setTimeout(
          () => 'closeAllConnections' in server && server.closeAllConnections(),
          10_000,
        )
        await drained
        clearTimeout(timeout)
        await stopControl?.()
        await Promise.all([worker.stop(), sender.stop(), jobsStopped, dispatcher.stop()])
        if (ownsStore) await store.close()
        logger.info('stopped')
      })()
      return closing
    },
  }
}

/** Runs a `hearth` command sent through the control socket on this server's store. */
async function runForwarded(command: ForwardedCommand, store: Store): Promise<ForwardedAnswer> {
  let stdout = ''
  let stderr = ''
  const code = await runCli(command.argv, {
    env: process.env,
    store,
    cwd: command.cwd,
    stdout: (text) => (stdout += text),
    stderr: (text) => (stderr += text),
  })
  return { stdout, stderr, code }
}
