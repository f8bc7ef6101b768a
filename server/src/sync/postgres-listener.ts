import { clientConfigFor } from '@hearth/engine/node'
import pg from 'pg'
import type { Logger } from 'pino'

/** The channel the household clock's trigger announces `householdId:version` on (migration 0004). */
export const HOUSEHOLD_CHANNEL = 'hearth_household'
/** The channel server instances relay presence updates on. */
export const PRESENCE_CHANNEL = 'hearth_presence'

/** A running LISTEN connection. */
export interface PostgresListener {
  close(): Promise<void>
}

/**
 * Listens on PostgreSQL for notifications on each channel of `handlers`, on a connection of its
 * own (a pooled one cannot hold LISTEN), on the primary of a multi-host URL. A lost connection is re-established with backoff; what
 * is missed meanwhile is the caller's to recover (the sync hub's clock poll finds every change,
 * presence states are renewed every 15 seconds).
 */
export function listenOnPostgres(
  url: string,
  handlers: Record<string, (payload: string) => void>,
  logger: Logger,
): PostgresListener {
  let client: pg.Client | null = null
  let closed = false
  let retry: ReturnType<typeof setTimeout> | null = null
  let delay = 250

  const connect = async () => {
    let config: pg.ClientConfig
    try {
      // On a cluster, the primary: NOTIFY does not reach a standby's sessions.
      config = await clientConfigFor(url)
    } catch (err) {
      logger.warn({ err }, 'postgres listener found no server to listen on')
      return void retryLater()
    }
    const next = new pg.Client(config)
    next.on('notification', (message) => {
      try {
        handlers[message.channel]?.(message.payload ?? '')
      } catch (err) {
        logger.warn({ err, channel: message.channel }, 'a notification could not be handled')
      }
    })
    next.on('error', (err) => {
      logger.warn({ err }, 'postgres listener lost its connection')
      reconnect(next)
    })
    next.on('end', () => {
      if (client === next) reconnect(next)
    })
    try {
      await next.connect()
      for (const channel of Object.keys(handlers)) await next.query(`LISTEN ${pg.escapeIdentifier(channel)}`)
      if (closed) {
        await next.end()
        return
      }
      client = next
      delay = 250
    } catch (err) {
      logger.warn({ err }, 'postgres listener could not connect')
      reconnect(next)
    }
  }

  const reconnect = (failed: pg.Client) => {
    failed.end().catch(() => {})
    if (client === failed) client = null
    retryLater()
  }

  const retryLater = () => {
    if (closed || retry) return
    retry = setTimeout(() => {
      retry = null
      void connect()
    }, delay)
    retry.unref()
    // At most 2 s apart, so a failover's new primary is listened on soon after it is promoted.
    delay = Math.min(delay * 2, 2_000)
  }

  void connect()
  return {
    async close() {
      closed = true
      if (retry) clearTimeout(retry)
      await client?.end().catch(() => {})
      client = null
    },
  }
}

/** Reads a `HOUSEHOLD_CHANNEL` payload. */
export function parseHouseholdVersion(payload: string): { householdId: string; version: number } | null {
  const [householdId, version] = payload.split(':')
  return householdId ? { householdId, version: Number(version) } : null
}
