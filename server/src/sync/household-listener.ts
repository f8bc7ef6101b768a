import pg from 'pg'
import type { Logger } from 'pino'

/** The channel the household clock's trigger announces `householdId:version` on. */
export const HOUSEHOLD_CHANNEL = 'hearth_household'

/** A running LISTEN connection. */
export interface HouseholdListener {
  close(): Promise<void>
}

/**
 * Listens on PostgreSQL for household version bumps committed by any instance, on a connection
 * of its own (a pooled one cannot hold LISTEN). A lost connection is re-established with backoff;
 * meanwhile the hub's clock poll still finds every change.
 */
export function listenForHouseholdChanges(
  url: string,
  onChange: (householdId: string, version: number) => void,
  logger: Logger,
): HouseholdListener {
  let client: pg.Client | null = null
  let closed = false
  let retry: ReturnType<typeof setTimeout> | null = null
  let delay = 250

  const connect = async () => {
    const next = new pg.Client({ connectionString: url })
    next.on('notification', (message) => {
      const [householdId, version] = (message.payload ?? '').split(':')
      if (householdId) onChange(householdId, Number(version))
    })
    next.on('error', (err) => {
      logger.warn({ err }, 'household listener lost its connection')
      reconnect(next)
    })
    next.on('end', () => {
      if (client === next) reconnect(next)
    })
    try {
      await next.connect()
      await next.query(`LISTEN ${HOUSEHOLD_CHANNEL}`)
      if (closed) {
        await next.end()
        return
      }
      client = next
      delay = 250
    } catch (err) {
      logger.warn({ err }, 'household listener could not connect')
      reconnect(next)
    }
  }

  const reconnect = (failed: pg.Client) => {
    failed.end().catch(() => {})
    if (client === failed) client = null
    if (closed || retry) return
    retry = setTimeout(() => {
      retry = null
      void connect()
    }, delay)
    retry.unref()
    delay = Math.min(delay * 2, 10_000)
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
