import type { Store } from '@hearth/engine'
import { readClusterUrl } from '@hearth/engine/node'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { ServerConfig } from './config.ts'

/**
 * Says in the log, at start, when an acknowledged write could be lost to a power cut: PostgreSQL
 * with `fsync` or `synchronous_commit` off (its own settings decide, Hearth cannot override
 * them), a cluster whose commits do not wait for a standby (a failover could lose them), or an
 * embedded folder with `HEARTH_DURABILITY=off`. Answers the warnings it logged.
 */
export async function warnIfNotDurable(
  store: Store,
  logger: Logger,
  config: Pick<ServerConfig, 'durability' | 'dataDir' | 'databaseUrl'>,
): Promise<string[]> {
  const warnings: string[] = []
  if (store.kind === 'postgres') {
    const fsync = await setting(store, 'fsync')
    const synchronousCommit = await setting(store, 'synchronous_commit')
    if (fsync !== 'on') {
      warnings.push(
        `PostgreSQL runs with fsync=${fsync}: a power cut can lose acknowledged writes or corrupt the database.`,
      )
    }
    if (synchronousCommit === 'off') {
      warnings.push('PostgreSQL runs with synchronous_commit=off: a power cut can lose acknowledged writes.')
    }
    const failover = await failoverWarning(store, config.databaseUrl, synchronousCommit)
    if (failover) warnings.push(failover)
  } else if (!config.durability && config.dataDir !== 'memory://' && !config.databaseUrl) {
    warnings.push(
      'HEARTH_DURABILITY=off: the embedded store does not sync its write-ahead log; a power cut can lose acknowledged writes or leave the folder unreadable.',
    )
  }
  for (const warning of warnings) logger.warn({ durability: false }, warning)
  return warnings
}

/**
 * On a cluster (a URL with several hosts, or a primary with standbys attached), a commit is
 * acknowledged before a standby has it unless `synchronous_commit` is `on` (or stricter) and
 * `synchronous_standby_names` names a standby: a failover to that standby would then lose it.
 */
async function failoverWarning(
  store: Store,
  databaseUrl: string | undefined,
  synchronousCommit: string,
): Promise<string | null> {
  const hosts = databaseUrl ? (readClusterUrl(databaseUrl)?.hosts.length ?? 1) : 1
  const { rows } = await sql<{ standbys: number; names: string }>`
    select (select count(*) from pg_stat_replication)::int as standbys,
           current_setting('synchronous_standby_names') as names
  `.execute(store.db)
  const { standbys, names } = rows[0]!
  if (hosts < 2 && standbys === 0) return null
  if (names.trim() === '') {
    return `PostgreSQL has standbys (${standbys} attached, ${hosts} hosts in the URL) but synchronous_standby_names is empty: commits do not wait for a standby, and a failover can lose acknowledged writes.`
  }
  if (['off', 'local'].includes(synchronousCommit)) {
    return `PostgreSQL runs with synchronous_commit=${synchronousCommit}: commits do not wait for the synchronous standby (${names}), and a failover can lose acknowledged writes.`
  }
  return null
}

async function setting(store: Store, name: 'fsync' | 'synchronous_commit'): Promise<string> {
  const { rows } = await sql<{ setting: string }>`select current_setting(${name}) as setting`.execute(
    store.db,
  )
  return rows[0]!.setting
}
