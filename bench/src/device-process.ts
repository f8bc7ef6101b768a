import { spawn } from 'node:child_process'

const deviceMain = new URL('./sync-device.ts', import.meta.url).pathname

/** Starts `sync-device.ts`; `send` writes one command and resolves with its one-line answer. */
export async function deviceProcess(env: Record<string, string>) {
  const child = spawn(process.execPath, ['--import', 'tsx', deviceMain], {
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
