/** How long sessions last and how their cookie is sent; docs/security.md (Sessions). */
export interface SessionSettings {
  /** A session unused this long ends (`HEARTH_SESSION_IDLE_HOURS`, 168: a week). */
  idleMs: number
  /** A session ends this long after sign-in however busy (`HEARTH_SESSION_MAX_DAYS`, 30). */
  maxMs: number
  /**
   * `Secure` and the `__Host-` name (`HEARTH_SECURE_COOKIES`): `auto` sets them when the request
   * arrived over https or `HEARTH_PUBLIC_URL` is https; `on` always (behind a TLS proxy); `off` never.
   */
  secure: 'auto' | 'on' | 'off'
  /** An SDK device's access token lasts this long; the device refreshes it (`HEARTH_DEVICE_ACCESS_MINUTES`, 15). */
  deviceAccessMs: number
  /** A device unused this long can no longer refresh and must sign in again (`HEARTH_DEVICE_IDLE_DAYS`, 30). */
  deviceIdleMs: number
  /** Where people reach this server (`HEARTH_PUBLIC_URL`), for links in emails; the request's own origin otherwise. */
  publicUrl?: string
}

const HOUR_MS = 3_600_000

export const DEFAULT_SESSION_SETTINGS: SessionSettings = {
  idleMs: 168 * HOUR_MS,
  maxMs: 30 * 24 * HOUR_MS,
  secure: 'auto',
  deviceAccessMs: 15 * 60_000,
  deviceIdleMs: 30 * 24 * HOUR_MS,
}

/** Reads the session settings; a bad value stops start-up naming the variable. */
export function sessionSettingsFromEnv(env: NodeJS.ProcessEnv): SessionSettings {
  const number = (name: string, fallback: number, max: number) => {
    const raw = env[name]
    if (raw === undefined || raw === '') return fallback
    const value = Number(raw)
    if (!Number.isFinite(value) || value <= 0 || value > max) {
      throw new Error(`${name} must be a positive number up to ${max}, got "${raw}".`)
    }
    return value
  }
  const idleHours = number('HEARTH_SESSION_IDLE_HOURS', 168, 24 * 366)
  const maxDays = number('HEARTH_SESSION_MAX_DAYS', 30, 366)
  const accessMinutes = number('HEARTH_DEVICE_ACCESS_MINUTES', 15, 24 * 60)
  const deviceIdleDays = number('HEARTH_DEVICE_IDLE_DAYS', 30, 366)
  const secure = env.HEARTH_SECURE_COOKIES || 'auto'
  if (secure !== 'auto' && secure !== 'on' && secure !== 'off') {
    throw new Error(`HEARTH_SECURE_COOKIES must be auto, on or off, got "${secure}".`)
  }
  const publicUrl = env.HEARTH_PUBLIC_URL || undefined
  if (publicUrl && !/^https?:\/\/[^/]+\/?$/.test(publicUrl)) {
    throw new Error(
      `HEARTH_PUBLIC_URL must be an origin such as https://hearth.example.org, got "${publicUrl}".`,
    )
  }
  return {
    idleMs: Math.round(idleHours * HOUR_MS),
    maxMs: Math.round(maxDays * 24 * HOUR_MS),
    secure,
    deviceAccessMs: Math.round(accessMinutes * 60_000),
    deviceIdleMs: Math.round(deviceIdleDays * 24 * HOUR_MS),
    publicUrl: publicUrl?.replace(/\/$/, ''),
  }
}
