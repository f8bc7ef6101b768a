import { resolve } from 'node:path'
import { type AiConfig, loadAiConfig } from './ai/config.ts'
import { type OidcSettings, oidcSettingsFromEnv } from './auth/oidc-settings.ts'
import { type PasswordCheckLimits, passwordCheckLimitsFromEnv } from './auth/password-sign-in.ts'
import { type SessionSettings, sessionSettingsFromEnv } from './auth/session-settings.ts'
import { type BankConfig, bankConfigFromEnv } from './banks/bank-config.ts'
import { trustedProxiesFromEnv } from './http/client-address.ts'
import { type CostLimits, costLimitsFromEnv } from './http/cost-limits.ts'
import { type RateLimits, rateLimitsFromEnv } from './http/rate-limits.ts'
import { type SyncSocketLimits, syncSocketLimitsFromEnv } from './sync/socket-limits.ts'

/** The server's settings, all from the environment; see the README's Configuration table. */
export interface ServerConfig {
  port: number
  host: string
  databaseUrl?: string
  dataDir: string
  /** Sync the embedded store's write-ahead log before answering a write (`HEARTH_DURABILITY`, default on). */
  durability: boolean
  logLevel: string
  /** Scheduled backups (`HEARTH_BACKUP_DIR`, `HEARTH_BACKUP_INTERVAL_HOURS`, `HEARTH_BACKUP_KEEP`); off when unset. */
  backups?: { dir: string; intervalHours: number; keep: number }
  initOwnerToken?: string
  /** The first household's base currency (HEARTH_INIT_CURRENCY); else the machine's locale says. */
  initCurrency?: string
  /** The first household's time zone (HEARTH_INIT_TIMEZONE); else the machine's. */
  initTimeZone?: string
  /** Largest accepted request body, in bytes. */
  bodyLimitBytes: number
  /** How long a request, body included, may take to arrive, in milliseconds. */
  requestTimeoutMs: number
  /** Days of change log kept for devices to catch up from; older rows are trimmed hourly. */
  syncLogWindowDays: number
  /** Days of household activity kept before the hourly trim removes it; 730. */
  activityRetentionDays: number
  /** Rows per sync snapshot or delta page (2,000 when unset); not read from the environment. */
  syncPageRows?: number
  /** Origins whose pages may call the API (CORS): `*` for any, or a list. */
  corsOrigins: '*' | string[]
  /** Sync sockets: frame sizes, the hello deadline and how many may be open. */
  syncLimits: SyncSocketLimits
  /** Failed authentications, REST requests per key and pushes per device (per instance). */
  rateLimits: RateLimits
  /** Expensive calls at once per member and household, and how they yield to cheap ones (per instance). */
  costLimits: CostLimits
  /** Password checks computing and waiting at once, per client address and per account. */
  passwordChecks: PasswordCheckLimits
  /** Proxies whose X-Forwarded-For or Forwarded names the client (`HEARTH_TRUSTED_PROXIES`); none by default. */
  trustedProxies: string[]
  /** Sessions of the web app: idle and absolute lifetimes, the cookie's `Secure`, the public URL. */
  sessions: SessionSettings
  /** Sign-in with an OpenID Connect provider (`HEARTH_OIDC_*`); none when unset. */
  oidc?: OidcSettings
  /** The assistant: its provider and caps. */
  ai: AiConfig
  /** Webhook delivery settings. */
  webhooks: WebhookConfig
  /** Bank connections: how often they sync and how far back. */
  banks: BankConfig
  /** Email and Web Push for notifications; unset channels are unavailable. */
  notifications: import('./notifications/channels.ts').NotificationChannelConfig
}

/** How webhooks are sealed, checked and sent. */
export interface WebhookConfig {
  /** Encrypts signing secrets at rest (`HEARTH_WEBHOOK_SECRET_KEY`); unset stores them unencrypted. */
  secretKey?: string
  /** The key before a rotation (`HEARTH_WEBHOOK_SECRET_KEY_PREVIOUS`): opens what it sealed; docs/security.md. */
  previousSecretKey?: string
  /** Allow loopback and private targets (`HEARTH_WEBHOOK_ALLOW_PRIVATE=true`), for local setups and tests. */
  allowPrivate: boolean
  /** Per attempt (`HEARTH_WEBHOOK_TIMEOUT_MS`); 10,000. */
  timeoutMs: number
  /** Waits between retries; the three-day schedule of docs/api/webhooks.md unless a test shortens it. */
  retryScheduleMs?: readonly number[]
  /** Resolves host names; the system resolver unless a test overrides it. */
  lookup?: import('./webhooks/url-guard.ts').Lookup
}

/** Reads and checks the environment; a bad value stops start-up with a message naming it. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): ServerConfig {
  const port = env.PORT === undefined || env.PORT === '' ? 8787 : Number(env.PORT)
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new Error(`PORT must be an integer between 0 and 65535, got "${env.PORT}".`)
  }
  const dataDir = env.HEARTH_DATA_DIR || './data'
  const initOwnerToken = env.HEARTH_INIT_OWNER_TOKEN || undefined
  if (initOwnerToken !== undefined && initOwnerToken.length < 16) {
    throw new Error('HEARTH_INIT_OWNER_TOKEN must be at least 16 characters long.')
  }
  const initCurrency = env.HEARTH_INIT_CURRENCY || undefined
  if (initCurrency !== undefined && !/^[A-Z]{3}$/.test(initCurrency)) {
    throw new Error(`HEARTH_INIT_CURRENCY must be an ISO 4217 code such as EUR, got "${initCurrency}".`)
  }
  const initTimeZone = env.HEARTH_INIT_TIMEZONE || undefined
  if (initTimeZone !== undefined && !isTimeZone(initTimeZone)) {
    throw new Error(
      `HEARTH_INIT_TIMEZONE must be an IANA time zone such as Europe/Berlin, got "${initTimeZone}".`,
    )
  }
  const windowDays = env.HEARTH_SYNC_LOG_WINDOW_DAYS || '30'
  const syncLogWindowDays = Number(windowDays)
  if (!Number.isFinite(syncLogWindowDays) || syncLogWindowDays <= 0) {
    throw new Error(`HEARTH_SYNC_LOG_WINDOW_DAYS must be a positive number of days, got "${windowDays}".`)
  }
  const retention = env.HEARTH_ACTIVITY_RETENTION_DAYS || '730'
  const activityRetentionDays = Number(retention)
  if (!Number.isInteger(activityRetentionDays) || activityRetentionDays <= 0) {
    throw new Error(
      `HEARTH_ACTIVITY_RETENTION_DAYS must be a positive whole number of days, got "${retention}".`,
    )
  }
  const corsOrigins = parseOrigins(env.HEARTH_CORS_ORIGINS || '*')
  const timeout = env.HEARTH_REQUEST_TIMEOUT_MS || '30000'
  const requestTimeoutMs = Number(timeout)
  if (!Number.isInteger(requestTimeoutMs) || requestTimeoutMs <= 0) {
    throw new Error(`HEARTH_REQUEST_TIMEOUT_MS must be a positive integer, got "${timeout}".`)
  }
  const durability = env.HEARTH_DURABILITY || 'on'
  if (durability !== 'on' && durability !== 'off') {
    throw new Error(`HEARTH_DURABILITY must be on or off, got "${durability}".`)
  }
  const timeoutMs = Number(env.HEARTH_WEBHOOK_TIMEOUT_MS || '10000')
  if (!Number.isInteger(timeoutMs) || timeoutMs < 100 || timeoutMs > 120_000) {
    throw new Error(
      `HEARTH_WEBHOOK_TIMEOUT_MS must be a whole number of milliseconds from 100 to 120000, got "${env.HEARTH_WEBHOOK_TIMEOUT_MS}".`,
    )
  }
  const vapidKeys = [env.HEARTH_VAPID_PUBLIC_KEY, env.HEARTH_VAPID_PRIVATE_KEY].filter(Boolean)
  if (vapidKeys.length === 1) {
    throw new Error('HEARTH_VAPID_PUBLIC_KEY and HEARTH_VAPID_PRIVATE_KEY must be set together.')
  }
  if (env.HEARTH_WEBHOOK_SECRET_KEY_PREVIOUS && !env.HEARTH_WEBHOOK_SECRET_KEY) {
    throw new Error(
      'HEARTH_WEBHOOK_SECRET_KEY_PREVIOUS is set without HEARTH_WEBHOOK_SECRET_KEY, the key it rotates to.',
    )
  }
  const allowPrivate = env.HEARTH_WEBHOOK_ALLOW_PRIVATE || 'false'
  if (allowPrivate !== 'true' && allowPrivate !== 'false') {
    throw new Error(`HEARTH_WEBHOOK_ALLOW_PRIVATE must be true or false, got "${allowPrivate}".`)
  }
  return {
    backups: backupSchedule(env),
    port,
    host: env.HOST || '127.0.0.1',
    databaseUrl: env.DATABASE_URL || undefined,
    dataDir: dataDir === 'memory://' ? dataDir : resolve(dataDir),
    durability: durability === 'on',
    logLevel: env.LOG_LEVEL || 'info',
    initOwnerToken,
    initCurrency,
    initTimeZone,
    bodyLimitBytes: 1024 * 1024,
    requestTimeoutMs,
    syncLogWindowDays,
    activityRetentionDays,
    corsOrigins,
    syncLimits: syncSocketLimitsFromEnv(env),
    rateLimits: rateLimitsFromEnv(env),
    costLimits: costLimitsFromEnv(env),
    passwordChecks: passwordCheckLimitsFromEnv(env),
    trustedProxies: trustedProxiesFromEnv(env),
    sessions: sessionSettingsFromEnv(env),
    oidc: oidcSettingsFromEnv(env),
    ai: loadAiConfig(env),
    banks: bankConfigFromEnv(env),
    webhooks: {
      secretKey: env.HEARTH_WEBHOOK_SECRET_KEY || undefined,
      previousSecretKey: env.HEARTH_WEBHOOK_SECRET_KEY_PREVIOUS || undefined,
      allowPrivate: allowPrivate === 'true',
      timeoutMs,
    },
    notifications: {
      smtpUrl: env.HEARTH_SMTP_URL || undefined,
      smtpFrom: env.HEARTH_SMTP_FROM || 'Hearth <hearth@localhost>',
      ...(vapidKeys.length === 2 && {
        vapid: {
          publicKey: env.HEARTH_VAPID_PUBLIC_KEY!,
          privateKey: env.HEARTH_VAPID_PRIVATE_KEY!,
          subject: env.HEARTH_VAPID_SUBJECT || 'mailto:hearth@localhost',
        },
      }),
    },
  }
}

function backupSchedule(env: NodeJS.ProcessEnv): ServerConfig['backups'] {
  if (!env.HEARTH_BACKUP_DIR) return undefined
  const intervalHours = Number(env.HEARTH_BACKUP_INTERVAL_HOURS || '24')
  if (!Number.isFinite(intervalHours) || intervalHours <= 0) {
    throw new Error(
      `HEARTH_BACKUP_INTERVAL_HOURS must be a positive number of hours, got "${env.HEARTH_BACKUP_INTERVAL_HOURS}".`,
    )
  }
  const keep = Number(env.HEARTH_BACKUP_KEEP || '7')
  if (!Number.isInteger(keep) || keep < 1) {
    throw new Error(
      `HEARTH_BACKUP_KEEP must be a whole number of at least 1, got "${env.HEARTH_BACKUP_KEEP}".`,
    )
  }
  return { dir: resolve(env.HEARTH_BACKUP_DIR), intervalHours, keep }
}

/** `*`, or a comma-separated list of origins such as `https://app.example.com`. */
function parseOrigins(value: string): '*' | string[] {
  if (value.trim() === '*') return '*'
  const origins = value
    .split(',')
    .map((o) => o.trim())
    .filter((o) => o !== '')
  for (const origin of origins) {
    let parsed: URL | null = null
    try {
      parsed = new URL(origin)
    } catch {}
    if (!parsed || parsed.origin !== origin) {
      throw new Error(
        `HEARTH_CORS_ORIGINS must be * or a comma-separated list of origins (scheme, host and port, such as https://app.example.com), got "${origin}".`,
      )
    }
  }
  if (origins.length === 0) throw new Error('HEARTH_CORS_ORIGINS must be * or name at least one origin.')
  return origins
}

function isTimeZone(value: string): boolean {
  try {
    new Intl.DateTimeFormat('en', { timeZone: value })
    return true
  } catch {
    return false
  }
}
