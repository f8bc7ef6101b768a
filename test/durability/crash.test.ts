import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { apiClient, tempDataDir } from '../src/index.ts'
import { startServerProcess } from './server-process.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const TOKEN = 'crash-owner-token-0123456789abcdef'
const WRITERS = 8
const ROUNDS = 3

/** Writes tags from `WRITERS` loops until the server stops answering, adding acknowledged ids to `acked`. */
async function storm(url: string, round: number, acked: string[]): Promise<void> {
  const api = apiClient(url, TOKEN)
  await Promise.all(
    Array.from({ length: WRITERS }, async (_, writer) => {
      for (let i = 0; ; i++) {
        try {
          const res = await api.post('/households/current/tags', { name: `r${round} w${writer} #${i}` })
          if (res.status !== 201) throw new Error(`unexpected ${res.status}: ${JSON.stringify(res.body)}`)
          acked.push(res.body.id)
        } catch (error) {
          // The kill: the connection drops, and what was in flight was never acknowledged.
          if (error instanceof TypeError) return
          throw error
        }
      }
    }),
  )
}

describe('the embedded server killed during a write storm', () => {
  it('keeps every acknowledged write and opens again, kill after kill', async () => {
    const dataDir = tempDataDir(dirs)
    const acked: string[] = []
    for (let round = 0; round < ROUNDS; round++) {
      const server = await startServerProcess(dataDir, TOKEN)
      const mine: string[] = []
      const writes = storm(server.url, round, mine)
      // A random point in the storm, once writes are being acknowledged.
      while (mine.length < 10) await new Promise((resolve) => setTimeout(resolve, 20))
      await new Promise((resolve) => setTimeout(resolve, Math.random() * 1000))
      await server.stop('SIGKILL')
      await writes
      acked.push(...mine)
    }
    const server = await startServerProcess(dataDir, TOKEN)
    try {
      const res = await apiClient(server.url, TOKEN).get('/households/current/tags')
      expect(res.status).toBe(200)
      const present = new Set((res.body as { id: string }[]).map((t) => t.id))
      const lost = acked.filter((id) => !present.has(id))
      expect(lost).toEqual([])
    } finally {
      await server.stop()
    }
  }, 240_000)
})
