import { TEST_DATABASE_URL } from '@hearth/test/store'
import { afterEach, describe, expect, it } from 'vitest'
import { PreparedClient } from './prepared-client.ts'

/**
 * The PostgreSQL connection writes the statements sent in one tick with one system call
 * (`#writeWithTick`): a pipelined transaction's statements reach PostgreSQL together.
 */
describe.runIf(Boolean(TEST_DATABASE_URL))('a pipelined PostgreSQL connection', () => {
  let client: PreparedClient | null = null
  afterEach(async () => {
    await client?.end()
    client = null
  })

  /** A connected client whose socket counts the writes that reach the operating system. */
  async function countingClient() {
    client = new PreparedClient({ connectionString: TEST_DATABASE_URL, pipeline: true } as never)
    await client.connect()
    const stream = (client as unknown as { connection: { stream: Record<string, unknown> } }).connection
      .stream
    const writes = { count: 0 }
    for (const method of ['_write', '_writev'] as const) {
      const original = stream[method] as (...args: unknown[]) => unknown
      stream[method] = function (this: unknown, ...args: unknown[]) {
        writes.count++
        return original.apply(this, args)
      }
    }
    return { client, writes }
  }

  it('writes the statements sent in one tick with one system call, and answers each', async () => {
    const { client, writes } = await countingClient()
    const begin = client.query('begin')
    const created = client.query('create temporary table probe (n int) on commit drop')
    const inserted = client.query('insert into probe (n) values ($1), ($2)', [1, 2])
    const summed = client.query('select sum(n)::int as total from probe where n > $1', [0])
    const committed = client.query('commit')
    await Promise.all([begin, created, inserted, committed])
    expect((await summed).rows).toEqual([{ total: 3 }])
    expect(writes.count).toBe(1)
  })

  it('holds nothing past its tick: a statement sent after an answer leaves at once', async () => {
    const { client, writes } = await countingClient()
    expect((await client.query('select $1::int as n', [1])).rows).toEqual([{ n: 1 }])
    const after = writes.count
    await new Promise((resolve) => setTimeout(resolve, 5))
    expect((await client.query('select $1::int as n', [2])).rows).toEqual([{ n: 2 }])
    expect(writes.count).toBe(after + 1)
  })
})
