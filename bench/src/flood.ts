/**
 * A flood of wrong credentials in a process of its own, so its client work does not share the
 * measuring process's event loop: the bench's script runs again with `--flood URL`, calls `flood`
 * with its kind of attempt, and the measuring process stops it with SIGTERM and reads its counts.
 * bench:auth-flood and bench:sign-in share it.
 */
import { spawn } from 'node:child_process'

/** What a flood did: answers counted by label, and for how long it ran. */
export interface FloodCounts {
  statuses: Record<string, number>
  seconds: number
}

/**
 * The flood process: `parallel` workers each repeat `attempt(worker)` (which answers a label for
 * its answer, such as `key 401`) until SIGTERM, then print the counts as one JSON line. A refused
 * or timed-out connection (the listen backlog full) is counted as `no answer`, not fatal.
 */
export async function flood(attempt: (worker: number) => Promise<string>, parallel: number): Promise<void> {
  const statuses: Record<string, number> = {}
  let stopping = false
  const started = performance.now()
  process.once('SIGTERM', () => {
    stopping = true
  })
  const worker = async (n: number) => {
    while (!stopping) {
      const status = await attempt(n).catch(() => 'no answer')
      statuses[status] = (statuses[status] ?? 0) + 1
    }
  }
  process.stdout.write('flooding\n')
  await Promise.all(Array.from({ length: parallel }, (_, n) => worker(n)))
  const seconds = (performance.now() - started) / 1000
  process.stdout.write(`${JSON.stringify({ statuses, seconds } satisfies FloodCounts)}\n`)
}

/** Starts `script --flood url` and answers once it floods, with the function that stops it. */
export async function startFlood(script: string, url: string): Promise<{ stop: () => Promise<FloodCounts> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, '--flood', url], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let text = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    text += chunk.toString()
  })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', () => text.includes('flooding') && resolve())
    child.once('exit', (code) => reject(new Error(`the flood exited with ${code}`)))
  })
  const stop = async () => {
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    await exited
    return JSON.parse(text.split('\n').find((line) => line.startsWith('{'))!) as FloodCounts
  }
  return { stop }
}
