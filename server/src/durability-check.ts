import type { Store } from '@hearth/engine'
import { sql } from 'kysely'
import type { Logger } from 'pino'
import type { ServerConfig } from './config.ts'

/**
 * Says in the log, at start, when an acknowledged write could be lost to a power cut: PostgreSQL
 * with `fsync` or `synchronous_commit` off (its own settings decide, Hearth cannot override
 * them), or an embedded folder with `HEARTH_DURABILITY=off`. Answers the warnings it logged.
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
  } else if (!config.durability && config.dataDir !== 'memory://' && !config.databaseUrl) {
    warnings.push(
      'HEARTH_DURABILITY=off: the embedded store does not sync its write-ahead log; a power cut can lose acknowledged writes or leave the folder unreadable.',
    )
  }
  for (const warning of warnings) logger.warn({ durability: false }, warning)
  return warnings
}

async function setting(store: Store, name: 'fsync' | 'synchronous_commit'): Promise<string> {
  const { rows } = await sql<{ setting: string }>`select current_setting(${name}) as setting`.execute(
    store.db,
  )
  return rows[0]!.setting
}
