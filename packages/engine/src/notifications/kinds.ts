/** The channels a notification can go out on; `in_app` is the feed. */
export const NOTIFICATION_CHANNELS = ['in_app', 'email', 'push'] as const
export type NotificationChannel = (typeof NOTIFICATION_CHANNELS)[number]

/** What a kind is, who hears of it, and whether it is generated yet. */
export interface KindInfo {
  /** Generated today; a kind whose source another domain brings is listed and settable already. */
  live: boolean
  /** The member whose action caused it hears of it too. */
  aboutOwnAction: boolean
  /** Only owners hear of it. */
  ownersOnly: boolean
  /** Only the member whose action caused it hears of it (their own change, refused). */
  actorOnly: boolean
  /** Channels on by default. */
  defaults: readonly NotificationChannel[]
}

/** Every notification kind (docs/api/notifications.md). */
export const NOTIFICATION_KINDS = {
  budget_overrun: {
    live: true,
    aboutOwnAction: true,
    ownersOnly: false,
    actorOnly: false,
    defaults: ['in_app', 'push'],
  },
  large_transaction: {
    live: true,
    aboutOwnAction: false,
    ownersOnly: false,
    actorOnly: false,
    defaults: ['in_app', 'push'],
  },
  webhook_disabled: {
    live: true,
    aboutOwnAction: true,
    ownersOnly: true,
    actorOnly: false,
    defaults: ['in_app', 'email'],
  },
  bank_connection_attention: {
    live: true,
    aboutOwnAction: true,
    ownersOnly: true,
    actorOnly: false,
    defaults: ['in_app', 'email'],
  },
  bill_due_soon: {
    live: true,
    aboutOwnAction: true,
    ownersOnly: false,
    actorOnly: false,
    defaults: ['in_app', 'push'],
  },
  recurrence_price_change: {
    live: true,
    aboutOwnAction: true,
    ownersOnly: false,
    actorOnly: false,
    defaults: ['in_app'],
  },
  low_balance_ahead: {
    live: true,
    aboutOwnAction: true,
    ownersOnly: false,
    actorOnly: false,
    defaults: ['in_app', 'push'],
  },
  change_refused: {
    live: true,
    aboutOwnAction: true,
    ownersOnly: false,
    actorOnly: true,
    defaults: ['in_app'],
  },
  sign_in_failures: {
    live: true,
    aboutOwnAction: true,
    ownersOnly: false,
    actorOnly: true,
    defaults: ['in_app', 'email'],
  },
} as const satisfies Record<string, KindInfo>

export type NotificationKind = keyof typeof NOTIFICATION_KINDS

/** Every kind, in the order the preferences list them. */
export const NOTIFICATION_KIND_NAMES = Object.keys(NOTIFICATION_KINDS) as NotificationKind[]

/** A large transaction is one of at least this many cents either way, unless a member sets another. */
export const DEFAULT_LARGE_TRANSACTION_CENTS = 50_000n

/** One preference row as the API shows it. */
export interface NotificationPreference {
  kind: NotificationKind
  channel: NotificationChannel
  enabled: boolean
  lockScreenDetails: boolean
  /** For `large_transaction` only: the smallest absolute amount that counts, in cents; null elsewhere. */
  thresholdCents: string | null
}

/** The defaults a user starts with: every kind on every channel. */
export function defaultPreferences(): NotificationPreference[] {
  return NOTIFICATION_KIND_NAMES.flatMap((kind) =>
    NOTIFICATION_CHANNELS.map((channel) => ({
      kind,
      channel,
      enabled: (NOTIFICATION_KINDS[kind].defaults as readonly string[]).includes(channel),
      lockScreenDetails: false,
      thresholdCents: kind === 'large_transaction' ? String(DEFAULT_LARGE_TRANSACTION_CENTS) : null,
    })),
  )
}

/** Cents as a decimal amount (`-125000` → `-1,250.00`), exactly, with no floating point. */
export function formatCents(cents: string): string {
  const negative = cents.startsWith('-')
  const digits = (negative ? cents.slice(1) : cents).padStart(3, '0')
  const whole = digits.slice(0, -2).replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  return `${negative ? '-' : ''}${whole}.${digits.slice(-2)}`
}
