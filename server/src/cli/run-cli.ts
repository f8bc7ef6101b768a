import { resolve } from 'node:path'
import { parseArgs } from 'node:util'
import {
  type ActorContext,
  EngineError,
  isScope,
  migrateToLatest,
  newUlid,
  operations,
  type Role,
  runMutation,
  runQuery,
  SCOPES,
  type Scope,
  type Store,
} from '@hearth/engine'
import { BackupError, DataDirLockedError, openStore, restoreBackup, writeBackup } from '@hearth/engine/node'
import { mintApiKey } from '../auth/api-key-token.ts'
import { mintLinkCode } from '../auth/session-token.ts'
import { loadConfig } from '../config.ts'
import { forwardToServer } from './control-socket.ts'

const USAGE = `Usage: npm run hearth -- <command> [options] [--json]

Commands:
  user create --name <name> [--email <email>] [--time-zone <tz>]
  household create --owner <userId> --name <name> [--currency EUR] [--time-zone Europe/Berlin] [--language en]
  member add --household <id> --user <userId> [--role member|owner]
  key create --user <userId> --name <name> [--scopes all|scope,scope,...]
  key list --user <userId>
  key revoke --user <userId> --id <keyId>
  user reset-password --user <userId>   a one-time link (24 h) where the user sets a new password
  user sessions --user <userId> [--revoke-all]   list the user's sessions and devices, or sign them out everywhere
  household list
  owner recover [--household <id>] [--name <key name>]
  backup --out <file>            a consistent snapshot of the store, synced to <file>
  restore --from <file>          fill a new store (an empty folder or database) from a backup

\`owner recover\` is for an owner who lost their only key: it issues a new all-scopes key to the
household's longest-standing owner (the household may be left out when the store holds one).

The CLI opens the store itself (HEARTH_DATA_DIR or DATABASE_URL). When a running server holds the
embedded store's folder, the command runs inside that server instead, through the folder's control
socket (hearth.sock, usable only by the folder's owner).`

const OPTIONS = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  email: { type: 'string' },
  'time-zone': { type: 'string' },
  owner: { type: 'string' },
  currency: { type: 'string' },
  language: { type: 'string' },
  household: { type: 'string' },
  user: { type: 'string' },
  role: { type: 'string' },
  scopes: { type: 'string' },
  id: { type: 'string' },
  out: { type: 'string' },
  from: { type: 'string' },
  'revoke-all': { type: 'boolean' },
} as const

type Values = ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>['values']

/** Every command acts as the named user, with all scopes: the CLI is the operator's tool. */
function actingAs(userId: string): ActorContext {
  return { userId, scopes: [...SCOPES], now: new Date(), via: { kind: 'cli' } }
}

/** A path option, from the folder the command was typed in (the server's own may differ). */
function pathOption(values: Values, name: 'out' | 'from', cwd: string): string {
  return resolve(cwd, required(values, name))
}

function required(values: Values, name: keyof Values): string {
  const value = values[name]
  if (typeof value !== 'string' || value === '') throw new UsageError(`--${name} is required.`)
  return value
}

class UsageError extends Error {}

const COMMANDS: Record<
  string,
  (
    store: Store,
    values: Values,
    cwd: string,
    env: NodeJS.ProcessEnv,
  ) => Promise<{ text: string; json: unknown }>
> = {
  async 'user create'(store, v) {
    const id = newUlid()
    const { result } = await runMutation(
      store.db,
      operations.users.create,
      { id, name: required(v, 'name'), email: v.email, timeZone: v['time-zone'] },
      actingAs(id),
    )
    return { text: `Created user ${result.id} (${result.name}).`, json: result }
  },
  async 'household create'(store, v) {
    const id = newUlid()
    const owner = required(v, 'owner')
    await assertUser(store, owner)
    const { result } = await runMutation(
      store.db,
      operations.households.create,
      {
        id,
        name: required(v, 'name'),
        baseCurrency: v.currency,
        timeZone: v['time-zone'],
        dataLanguage: v.language,
      },
      { ...actingAs(owner), householdId: id, role: 'owner' },
    )
    return { text: `Created household ${result.id} (${result.name}), owned by ${owner}.`, json: result }
  },
  async 'member add'(store, v) {
    const householdId = required(v, 'household')
    const role = (v.role ?? 'member') as Role
    const owner = await store.db
      .selectFrom('memberships')
      .select('user_id')
      .where('household_id', '=', householdId)
      .where('role', '=', 'owner')
      .executeTakeFirst()
    if (!owner) throw new EngineError(404, 'NOT_FOUND', `Household ${householdId} was not found.`)
    const { result } = await runMutation(
      store.db,
      operations.members.add,
      { userId: required(v, 'user'), role },
      { ...actingAs(owner.user_id), householdId, role: 'owner' },
    )
    return { text: `User ${result.userId} is now ${result.role} of household ${householdId}.`, json: result }
  },
  async 'key create'(store, v) {
    const userId = required(v, 'user')
    await assertUser(store, userId)
    const scopes = parseScopes(v.scopes ?? 'all')
    const minted = mintApiKey()
    const { result } = await runMutation(
      store.db,
      operations.apiKeys.create,
      { id: newUlid(), name: required(v, 'name'), scopes, keyHash: minted.hash, prefix: minted.prefix },
      actingAs(userId),
    )
    return {
      text: `Created key ${result.id} for ${userId}.\nKey (shown once, keep it safe): ${minted.token}`,
      json: { ...result, key: minted.token },
    }
  },
  async 'household list'(store) {
    const rows = await store.db
      .selectFrom('households as h')
      .leftJoin('memberships as m', (j) => j.onRef('m.household_id', '=', 'h.id').on('m.role', '=', 'owner'))
      .leftJoin('users as u', 'u.id', 'm.user_id')
      .select(['h.id', 'h.name', 'u.id as ownerId', 'u.name as ownerName'])
      .orderBy('h.created_at')
      .orderBy('h.id')
      .orderBy('m.created_at')
      .execute()
    const text = rows.length
      ? rows
          .map((r) => `${r.id}  ${r.name}  owner: ${r.ownerId ?? '-'} (${r.ownerName ?? 'none'})`)
          .join('\n')
      : 'No households.'
    return { text, json: { items: rows } }
  },
  async 'owner recover'(store, v) {
    const householdId = v.household ?? (await onlyHousehold(store))
    const owner = await store.db
      .selectFrom('memberships')
      .select('user_id')
      .where('household_id', '=', householdId)
      .where('role', '=', 'owner')
      .orderBy('created_at')
      .orderBy('user_id')
      .executeTakeFirst()
    if (!owner) throw new EngineError(404, 'NOT_FOUND', `Household ${householdId} was not found.`)
    const minted = mintApiKey()
    const { result } = await runMutation(
      store.db,
      operations.apiKeys.create,
      {
        id: newUlid(),
        name: v.name ?? 'Recovery key',
        scopes: [...SCOPES],
        keyHash: minted.hash,
        prefix: minted.prefix,
      },
      actingAs(owner.user_id),
    )
    return {
      text: `Created key ${result.id} for owner ${owner.user_id} of household ${householdId}.\nKey (shown once, keep it safe): ${minted.token}`,
      json: { ...result, key: minted.token, userId: owner.user_id, householdId },
    }
  },
  async 'key list'(store, v) {
    const keys = await runQuery(store.db, operations.apiKeys.list, {}, actingAs(required(v, 'user')))
    const text = keys.length
      ? keys.map((k) => `${k.id}  ${k.prefix}…  ${k.revokedAt ? 'revoked' : 'active '}  ${k.name}`).join('\n')
      : 'No keys.'
    return { text, json: { items: keys } }
  },
  async 'key revoke'(store, v) {
    const { result } = await runMutation(
      store.db,
      operations.apiKeys.revoke,
      { id: required(v, 'id') },
      actingAs(required(v, 'user')),
    )
    return { text: `Revoked key ${result.id}.`, json: result }
  },
  async 'user reset-password'(store, v, _cwd, env) {
    const userId = required(v, 'user')
    await assertUser(store, userId)
    const code = mintLinkCode()
    const { result } = await runMutation(
      store.db,
      operations.signInLinks.issue,
      {
        id: newUlid(),
        purpose: 'reset',
        codeHash: code.hash,
        expiresAt: new Date(Date.now() + 24 * 3_600_000).toISOString(),
      },
      actingAs(userId),
    )
    const config = loadConfig(env)
    const origin = config.sessions.publicUrl ?? `http://${config.host}:${config.port}`
    const url = `${origin}/app/setup?code=${encodeURIComponent(code.token)}`
    return {
      text: `Reset link for ${userId} (works once, until ${result.expiresAt}):\n${url}`,
      json: { ...result, url, code: code.token },
    }
  },
  async 'user sessions'(store, v) {
    const actor = actingAs(required(v, 'user'))
    if (v['revoke-all']) {
      const { result } = await runMutation(store.db, operations.sessions.revokeAll, {}, actor)
      return { text: `Signed out ${result.revoked} session(s).`, json: result }
    }
    const items = await runQuery(store.db, operations.sessions.list, {}, actor)
    const text = items.length
      ? items
          .map(
            (s) =>
              `${s.id}  ${s.kind.padEnd(7)}  ${s.lastUsedAt ?? s.createdAt}  ${s.clientAddress ?? '-'}  ${s.name}`,
          )
          .join('\n')
      : 'No sessions.'
    return { text, json: { items } }
  },
  async backup(store, v, cwd) {
    const out = pathOption(v, 'out', cwd)
    const header = await writeBackup(store, out)
    const rows = header.tables.reduce((sum, t) => sum + t.rows, 0)
    return {
      text: `Backed up ${rows} rows of ${header.tables.length} tables to ${out}.`,
      json: { path: out, ...header },
    }
  },
  async restore(store, v, cwd) {
    const from = pathOption(v, 'from', cwd)
    const header = await restoreBackup(store, from)
    const rows = header.tables.reduce((sum, t) => sum + t.rows, 0)
    return {
      text: `Restored ${rows} rows of ${header.tables.length} tables from ${from} (taken ${header.createdAt}).`,
      json: { path: from, ...header },
    }
  },
}

function parseScopes(list: string): Scope[] {
  if (list === 'all') return [...SCOPES]
  const scopes = list
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const unknown = scopes.filter((s) => !isScope(s))
  if (unknown.length)
    throw new UsageError(`Unknown scopes: ${unknown.join(', ')}. Known: ${SCOPES.join(', ')}`)
  return scopes as Scope[]
}

/** The store's one household, for commands that may leave it out when there is no doubt. */
async function onlyHousehold(store: Store): Promise<string> {
  const rows = await store.db.selectFrom('households').select('id').limit(2).execute()
  if (rows.length === 0) throw new EngineError(404, 'NOT_FOUND', 'The store holds no household.')
  if (rows.length > 1) throw new UsageError('The store holds several households: name one with --household.')
  return rows[0]!.id
}

async function assertUser(store: Store, userId: string): Promise<void> {
  const user = await store.db.selectFrom('users').select('id').where('id', '=', userId).executeTakeFirst()
  if (!user) throw new EngineError(404, 'NOT_FOUND', `User ${userId} was not found.`)
}

/** Where the CLI reads its settings and writes its answers; a test passes its own. */
export interface CliIo {
  env: NodeJS.ProcessEnv
  stdout(text: string): void
  stderr(text: string): void
  /** An open store to act on instead of the one the environment names; the CLI leaves it open. */
  store?: Store
  /** The folder relative paths are read from; the process's own by default. */
  cwd?: string
}

const PROCESS_IO: CliIo = {
  env: process.env,
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}

/** Runs one CLI command (`user create --name Ada`) and resolves with the process exit code. */
export async function runCli(argv: string[], io: CliIo = PROCESS_IO): Promise<number> {
  let parsed: ReturnType<typeof parseArgs<{ options: typeof OPTIONS; allowPositionals: true }>>
  try {
    parsed = parseArgs({ args: argv, options: OPTIONS, allowPositionals: true, strict: true })
  } catch (error) {
    io.stderr(`${(error as Error).message}\n\n${USAGE}\n`)
    return 2
  }
  const { values, positionals } = parsed
  const command = COMMANDS[positionals.slice(0, 2).join(' ')]
  if (values.help || !command) {
    io.stderr(`${USAGE}\n`)
    return values.help ? 0 : 2
  }
  let store: Store
  const cwd = io.cwd ?? process.cwd()
  try {
    const config = loadConfig(io.env)
    try {
      store = io.store ?? (await openStore({ databaseUrl: config.databaseUrl, dataDir: config.dataDir }))
    } catch (error) {
      // The folder is a running server's: every command runs there instead, whichever it is.
      if (!(error instanceof DataDirLockedError)) throw error
      const answer = await forwardToServer(config.dataDir, { argv, cwd })
      if (!answer) throw error
      if (answer.stdout) io.stdout(answer.stdout)
      if (answer.stderr) io.stderr(answer.stderr)
      return answer.code
    }
  } catch (error) {
    return fail(io, values.json, error)
  }
  try {
    await migrateToLatest(store.db)
    const out = await command(store, values, cwd, io.env)
    io.stdout(values.json ? `${JSON.stringify(out.json, null, 2)}\n` : `${out.text}\n`)
    return 0
  } catch (error) {
    return fail(io, values.json, error)
  } finally {
    if (!io.store) await store.close()
  }
}

function fail(io: CliIo, json: boolean | undefined, error: unknown): number {
  const code =
    error instanceof EngineError
      ? error.code
      : error instanceof DataDirLockedError
        ? 'DATA_DIR_LOCKED'
        : error instanceof UsageError
          ? 'USAGE'
          : error instanceof BackupError
            ? 'BACKUP'
            : 'ERROR'
  const detail = error instanceof EngineError && error.errors ? error.errors : undefined
  const message = error instanceof Error ? error.message : String(error)
  if (json) io.stdout(`${JSON.stringify({ error: { code, message, errors: detail } }, null, 2)}\n`)
  else
    io.stderr(
      `hearth: ${message}${detail ? `\n${detail.map((e) => `  ${e.path}: ${e.message}`).join('\n')}` : ''}\n`,
    )
  return code === 'USAGE' ? 2 : 1
}
