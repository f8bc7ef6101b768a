import pg from 'pg'

/** `url` with its database name replaced by `name`. */
export function withDatabase(url: string, name: string): string {
  const next = new URL(url)
  next.pathname = `/${name}`
  return next.toString()
}

/** The database name `url` names. */
export function databaseName(url: string): string {
  return new URL(url).pathname.slice(1)
}

/** A database name as an SQL identifier. */
export function quoteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`
}

/**
 * Runs `statements` in turn on the `postgres` database of the server `url` names: where test
 * databases are created and dropped, with no session on the databases themselves.
 */
export async function onServer(url: string, statements: readonly string[]): Promise<void> {
  const client = new pg.Client({ connectionString: withDatabase(url, 'postgres') })
  await client.connect()
  try {
    for (const text of statements) await client.query(text)
  } finally {
    await client.end()
  }
}
