import { execFileSync } from 'node:child_process'
import { readFileSync, rmSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { apiClient, tempDataDir } from '../src/index.ts'
import { startServerProcess } from './server-process.ts'

const dirs: string[] = []
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true })
})

const TOKEN = 'durability-owner-token-0123456789'

/** One system call as `strace -f -y` printed it, with a resumed call joined to its start. */
interface Call {
  index: number
  pid: string
  name: string
  line: string
}

/** Parses strace's output; an `<unfinished ...>` call is placed where it finished. */
function readCalls(text: string): Call[] {
  const calls: Call[] = []
  const open = new Map<string, string>()
  for (const raw of text.split('\n')) {
    const match = /^(\d+)\s+(.*)$/.exec(raw)
    if (!match) continue
    const [, pid, rest] = match as unknown as [string, string, string]
    if (rest.endsWith('<unfinished ...>')) {
      open.set(pid, rest)
      continue
    }
    const resumed = /^<\.\.\. (\w+) resumed>(.*)$/.exec(rest)
    const line = resumed ? `${open.get(pid) ?? ''}${resumed[2]}` : rest
    if (resumed) open.delete(pid)
    const name = /^(\w+)\(/.exec(line)?.[1]
    if (name) calls.push({ index: calls.length, pid, name, line })
  }
  return calls
}

describe('a REST write on the embedded store, seen from the kernel', () => {
  it("runs where strace is installed (.ci/run installs Debian's package)", () => {
    expect(() => execFileSync('strace', ['-V'], { stdio: 'ignore' })).not.toThrow()
  })

  it('writes its WAL and syncs it before the first byte of its answer leaves', async () => {
    const dataDir = tempDataDir(dirs)
    const trace = join(dataDir, '..', `${dataDir.split('/').pop()}.strace`)
    dirs.push(trace)
    const server = await startServerProcess(dataDir, TOKEN, {
      wrapper: [
        'strace',
        '-f',
        '-y',
        '-s',
        '65536',
        '-e',
        'trace=read,pwrite64,write,writev,fdatasync,fsync',
        '-o',
        trace,
      ],
    })
    // Five writes one after another, each alone on the server: the first is followed call by call.
    const markers = Array.from({ length: 5 }, (_, i) => `durable-${Date.now().toString(36)}-${i}`)
    const marker = markers[0]!
    const statuses: number[] = []
    try {
      for (const name of markers) {
        statuses.push((await apiClient(server.url, TOKEN).post('/households/current/tags', { name })).status)
      }
    } finally {
      await server.stop()
    }
    expect(statuses).toEqual([201, 201, 201, 201, 201])

    const calls = readCalls(readFileSync(trace, 'utf8'))
    // PostgreSQL writes a transaction's WAL at its commit, so this write carries the commit record too.
    const walWrite = calls.find(
      (c) => c.name === 'pwrite64' && c.line.includes('/pg_wal/') && c.line.includes(marker),
    )
    expect(walWrite, 'the WAL write carrying the new tag').toBeDefined()
    const answer = calls.find(
      (c) =>
        c.index > walWrite!.index &&
        (c.name === 'write' || c.name === 'writev') &&
        /<(TCP|TCPv6|socket):/.test(c.line) &&
        c.line.includes('HTTP/1.1 201'),
    )
    expect(answer, 'the HTTP answer').toBeDefined()
    expect(answer!.line).toContain(marker)
    const segment = /pwrite64\(\d+<([^>]+)>/.exec(walWrite!.line)![1]!
    const sync = calls.find(
      (c) =>
        c.index > walWrite!.index &&
        c.index < answer!.index &&
        (c.name === 'fdatasync' || c.name === 'fsync') &&
        c.line.includes(`<${segment}>`) &&
        /\)\s+= 0$/.test(c.line),
    )
    expect(sync, `a finished sync of ${segment} between the WAL write and the answer`).toBeDefined()

    // What a lone write waits for: the WAL syncs between reading its request and sending its
    // answer. Its own commit's, and no other (authentication writes `last_used_at` at most once a
    // minute, the outbox worker runs after the answer). The worker's poll, once a second, may
    // land inside one of the five.
    const waited = markers.map((name) => {
      const request = calls.find(
        (c) => c.name === 'read' && /<(TCP|TCPv6|socket):/.test(c.line) && c.line.includes(name),
      )
      const reply = calls.find(
        (c) =>
          (c.name === 'write' || c.name === 'writev') &&
          c.line.includes('HTTP/1.1 201') &&
          c.line.includes(name),
      )
      expect(request && reply, `the request and answer of ${name}`).toBeTruthy()
      return calls.filter(
        (c) =>
          c.index > request!.index &&
          c.index < reply!.index &&
          (c.name === 'fdatasync' || c.name === 'fsync') &&
          c.line.includes('/pg_wal/'),
      ).length
    })
    expect(
      waited.every((n) => n >= 1),
      `WAL syncs waited for, per write: ${waited}`,
    ).toBe(true)
    expect(
      waited.filter((n) => n === 1).length,
      `WAL syncs waited for, per write: ${waited}`,
    ).toBeGreaterThanOrEqual(4)
  }, 120_000)

  it('with HEARTH_DURABILITY=off, answers without syncing the WAL', async () => {
    const dataDir = tempDataDir(dirs)
    const trace = join(dataDir, '..', `${dataDir.split('/').pop()}.strace`)
    dirs.push(trace)
    const server = await startServerProcess(dataDir, TOKEN, {
      wrapper: ['strace', '-f', '-y', '-e', 'trace=fdatasync,fsync', '-o', trace],
      env: { HEARTH_DURABILITY: 'off' },
    })
    try {
      const res = await apiClient(server.url, TOKEN).post('/households/current/tags', { name: 'Throwaway' })
      expect(res.status).toBe(201)
    } finally {
      await server.stop('SIGKILL')
    }
    const calls = readCalls(readFileSync(trace, 'utf8'))
    expect(calls.filter((c) => c.line.includes('/pg_wal/'))).toEqual([])
  }, 120_000)
})
