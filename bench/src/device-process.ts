import { spawn } from 'node:child_process'

const deviceMain = new URL('./sync-device.ts', import.meta.url).pathname

/**
 * Starts `sync-device.ts` (or another script speaking its protocol: a first line when ready, then
 * one JSON line answered per JSON line sent); `send` writes one command and resolves with its
 * one-line answer.
 */
export async function deviceProcess(env: Record<string, string>, script = deviceMain) {
  const child = spawn(process.execPath, ['--import', 'tsx', script], {
    env: { ...process.env, ...env },
    stdio: ['pipe', 'pipe', 'inherit'],
  })
  const answers: ((line: any) => void)[] = []
  let buffer = ''
  child.stdout!.on('data', (chunk: Buffer) => {
    buffer += chunk.toString()
    const lines = buffer.split('\n')
    buffer = lines.pop()!
    for (const line of lines) answers.shift()?.(JSON.parse(line))
  })
  const next = <T>() => new Promise<T>((resolve) => answers.push(resolve))
  await next()
  return {
    child,
    send<T = unknown>(command: Record<string, unknown>): Promise<T> {
      const answer = next<T>()
      child.stdin!.write(`${JSON.stringify(command)}\n`)
      return answer
    },
  }
}
