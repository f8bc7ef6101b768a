import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'

const server = useTestServer()

describe('Idempotency-Key, in the write’s own transaction', () => {
  const crashKey = `crash-${ulid()}`

  beforeAll(async () => {
    // A fault between the write and its stored answer, once: the answer's update fails the
    // first time this key is stored, as a crash before commit would. A sequence is not rolled
    // back, so it counts attempts across the aborted transaction.
    const statements = [
      'create sequence if not exists test_crash_once',
      `create or replace function test_crash_once() returns trigger language plpgsql as $$
      begin
        if new.key = '${crashKey}' and new.state = 'done' and nextval('test_crash_once') = 1 then
          raise exception 'simulated crash before commit';
        end if;
        return new;
      end $$`,
      `create trigger test_crash_once before update on idempotency_keys
        for each row execute function test_crash_once()`,
    ]
    for (const statement of statements) await sql.raw(statement).execute(server.store.db)
  })

  afterAll(async () => {
    for (const statement of [
      'drop trigger if exists test_crash_once on idempotency_keys',
      'drop function if exists test_crash_once()',
      'drop sequence if exists test_crash_once',
    ])
      await sql.raw(statement).execute(server.store.db)
  })

  it('leaves neither the write nor the key behind when the answer cannot be stored, so a retry runs once', async () => {
    const owner = await server.newOwner()
    const headers = { 'idempotency-key': crashKey }
    const failed = await owner.api.post('/households/current/tags', { name: 'Once' }, headers)
    expect(failed.status).toBe(500)
    expect((await owner.api.get('/households/current/tags')).body).toEqual([])

    const retried = await owner.api.post('/households/current/tags', { name: 'Once' }, headers)
    expect(retried.status).toBe(201)
    expect(retried.headers.get('idempotent-replayed')).toBeNull()
    const again = await owner.api.post('/households/current/tags', { name: 'Once' }, headers)
    expect(again.status).toBe(201)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(retried.body)
    const tags = (await owner.api.get('/households/current/tags')).body as { name: string }[]
    expect(tags.map((t) => t.name)).toEqual(['Once'])
  })

  it('commits the write and its answer together: one commit, visible as one household version', async () => {
    const owner = await server.newOwner()
    const household = (await owner.api.get('/households/current')).body.id as string
    const clock = () =>
      server.store.db
        .selectFrom('household_clock')
        .select('version')
        .where('household_id', '=', household)
        .executeTakeFirstOrThrow()
    const before = (await clock()).version
    const key = `one-commit-${ulid()}`
    const res = await owner.api.post(
      '/households/current/tags',
      { name: 'Atomic' },
      { 'idempotency-key': key },
    )
    expect(res.status).toBe(201)
    expect((await clock()).version).toBe(before + 1)
    const stored = await server.store.db
      .selectFrom('idempotency_keys')
      .select(['state', 'status', 'body'])
      .where('key', '=', key)
      .executeTakeFirstOrThrow()
    expect(stored).toMatchObject({ state: 'done', status: 201 })
    expect(JSON.parse(stored.body!)).toEqual(res.body)
  })

  it('replays a refusal the write gave, without running it again', async () => {
    const owner = await server.newOwner()
    await owner.api.post('/households/current/tags', { name: 'Taken' })
    const headers = { 'idempotency-key': `refused-${ulid()}` }
    const first = await owner.api.post('/households/current/tags', { name: 'taken' }, headers)
    expect(first.status).toBe(409)
    await owner.api.delete(
      `/households/current/tags/${(await owner.api.get('/households/current/tags')).body[0].id}`,
    )
    const again = await owner.api.post('/households/current/tags', { name: 'taken' }, headers)
    expect(again.status).toBe(409)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(first.body)
  })

  it('refuses an empty or over-long key with 400 INVALID_IDEMPOTENCY_KEY', async () => {
    const owner = await server.newOwner()
    for (const key of ['', 'k'.repeat(256)]) {
      const res = await owner.api.post(
        '/households/current/tags',
        { name: `K${key.length}` },
        { 'idempotency-key': key },
      )
      expect(res.status).toBe(400)
      expect(res.body.code).toBe('INVALID_IDEMPOTENCY_KEY')
    }
  })
})
