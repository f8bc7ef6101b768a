/**
 * A baseline for `bench:rest`, not a product: the least an HTTP write of a tag can cost on
 * PostgreSQL while it keeps the engine's contract (the household's clock, the row with its change
 * log, an event in the outbox, one commit). One Hono route, as the server's, that trusts every
 * caller, validates nothing, and writes hand-written SQL in a single pipelined round trip.
 * `bench:rest` runs it in a process of its own, as it runs the server, and measures it beside
 * the server's REST write: what the server spends above it is what the engine could still save.
 *
 * Environment: `DATABASE_URL`, `HOUSEHOLD_ID`. Prints `listening on <url>`.
 */

import { newUlid } from '@hearth/engine'
import { serve } from '@hono/node-server'
import { Hono } from 'hono'
import pg from 'pg'

const householdId = process.env.HOUSEHOLD_ID!
const client = new pg.Client({ connectionString: process.env.DATABASE_URL, pipeline: true })
await client.connect()

const CLOCK = `with bumped as (
    insert into household_clock (household_id, version) values ($1, 1)
    on conflict (household_id) do update set version = household_clock.version + 1
    returning version
  ) select version, set_config('hearth.version', version::text, true) from bumped`
const INSERT = `insert into tags (household_id, id, name, color, created_at, updated_at)
  values ($1, $2, $3, $4, $5, $5)`
const EVENT = `insert into outbox (household_id, topic, payload) values ($1, 'event', $2)`

const app = new Hono()
app.post('/households/:householdId/tags', async (c) => {
  const body = (await c.req.json()) as { name: string; color?: string }
  const now = new Date()
  const tag = {
    id: newUlid(),
    name: body.name,
    color: body.color ?? null,
    createdAt: now.toISOString(),
    updatedAt: now.toISOString(),
  }
  const event = { id: `evt_${newUlid()}`, type: 'tag.created', householdId, data: { tag } }
  await Promise.all([
    client.query('begin'),
    client.query({ name: 'clock', text: CLOCK, values: [householdId] }),
    client.query({ name: 'insert', text: INSERT, values: [householdId, tag.id, tag.name, tag.color, now] }),
    client.query({ name: 'event', text: EVENT, values: [householdId, JSON.stringify(event)] }),
    client.query('commit'),
  ])
  return c.json(tag, 201)
})

serve({ fetch: app.fetch, port: 0, hostname: '127.0.0.1' }, (info) => {
  process.stdout.write(`listening on http://127.0.0.1:${info.port}\n`)
})
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.once(signal, () => client.end().finally(() => process.exit(0)))
}
