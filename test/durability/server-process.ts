import { type ChildProcess, execFileSync, spawn } from 'node:child_process'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..')

/** A Hearth server running as its own process, as `npm start` runs it. */
export interface ServerProcess {
  child: ChildProcess
  url: string
  exited: Promise<number | null>
  /** Sends a signal to the server itself (not to its wrapper) and waits for it to end. */
  stop(signal?: NodeJS.Signals): Promise<void>
}

/**
 * Starts `server/src/main.ts` on `dataDir` with `token` as the owner's key, behind `wrapper`
 * (`strace …`, say) when given; resolves once it listens.
 */
export async function startServerProcess(
  dataDir: string,
  token: string,
  options: { wrapper?: string[]; env?: Record<string, string> } = {},
): Promise<ServerProcess> {
  const node = [process.execPath, '--import', 'tsx', join(ROOT, 'server', 'src', 'main.ts')]
  const [command, ...args] = [...(options.wrapper ?? []), ...node]
  const child = spawn(command!, args, {
    cwd: ROOT,
    env: {
      ...process.env,
      PORT: '0',
      LOG_LEVEL: 'silent',
      HEARTH_DATA_DIR: dataDir,
      HEARTH_INIT_OWNER_TOKEN: token,
      // libuv may hand file syncs to io_uring, where no system call shows them.
      UV_USE_IO_URING: '0',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  let output = ''
  const url = await new Promise<string>((resolve, reject) => {
    const onData = (chunk: Buffer) => {
      output += chunk.toString()
      const match = /listening on (http:\/\/\S+)/.exec(output)
      if (match) resolve(match[1]!)
    }
    child.stdout!.on('data', onData)
    child.stderr!.on('data', (chunk: Buffer) => (output += chunk.toString()))
    void exited.then((code) => reject(new Error(`server exited (${code}) before listening:\n${output}`)))
  })
  return {
    child,
    url,
    exited,
    async stop(signal = 'SIGTERM') {
      // A wrapper such as strace would detach and leave the server running: signal the server.
      const pid = options.wrapper
        ? Number(
            execFileSync('pgrep', ['-P', String(child.pid)], { encoding: 'utf8' })
              .trim()
              .split('\n')[0],
          )
        : child.pid!
      process.kill(pid, signal)
      await exited
    },
  }
}
