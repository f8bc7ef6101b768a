import { type ChildProcess, spawn } from 'node:child_process'

const serverMain = new URL('../../server/src/main.ts', import.meta.url).pathname

/**
 * Starts `npm start`'s entry (or another script that prints `listening on <url>`) in a child
 * process on a free port, as production runs it. `stdin: 'pipe'` gives the bench a pipe to a
 * script that reads one (`durable-server.ts`). `nodeArgs` go to node itself (`--cpu-prof`).
 */
export async function startServer(
  env: Record<string, string>,
  script = serverMain,
  stdin: 'ignore' | 'pipe' = 'ignore',
  nodeArgs: readonly string[] = [],
): Promise<{ child: ChildProcess; url: string }> {
  const child = spawn(process.execPath, [...nodeArgs, '--import', 'tsx', script], {
    env: { ...process.env, ...env, PORT: '0', LOG_LEVEL: 'warn' },
    stdio: [stdin, 'pipe', 'inherit'],
  })
  const url = await new Promise<string>((resolve, reject) => {
    let text = ''
    child.stdout!.on('data', (chunk: Buffer) => {
      text += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(text)
      if (match) resolve(match[1]!)
    })
    child.once('exit', (code) => reject(new Error(`server exited with ${code}`)))
  })
  return { child, url }
}

/** Stops a server child and waits for it to be gone. */
export async function stopServer(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  child.kill('SIGTERM')
  await exited
}
