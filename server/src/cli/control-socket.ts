import { chmodSync, rmSync } from 'node:fs'
import { createConnection, createServer } from 'node:net'
import { join } from 'node:path'

/** The control socket's name in a data folder. */
export const CONTROL_SOCKET = 'hearth.sock'
/** Largest request or answer on the socket: a command line and its output. */
const MAX_BYTES = 4 * 1024 * 1024

/** One CLI command as the server runs it for a `hearth` process: its arguments and folder. */
export interface ForwardedCommand {
  argv: string[]
  cwd: string
}

/** What the command printed and its exit code. */
export interface ForwardedAnswer {
  stdout: string
  stderr: string
  code: number
}

/**
 * Listens on `<dataDir>/hearth.sock` for CLI commands from `hearth` processes on this machine,
 * runs each with `run` in this (the server's) process, on its open store, and answers what it
 * printed. The socket is created with mode 0600 (the umask is narrowed while it is bound, so it
 * is never open wider): only the folder's owner, and root, may connect, the same people who
 * could open the folder's files. Answers the function that stops listening.
 */
export async function serveControlSocket(
  dataDir: string,
  run: (command: ForwardedCommand) => Promise<ForwardedAnswer>,
): Promise<() => Promise<void>> {
  const path = join(dataDir, CONTROL_SOCKET)
  // This process holds the folder's lock, so a socket file left here is a dead server's.
  rmSync(path, { force: true })
  const server = createServer((socket) => {
    let input = ''
    socket.setEncoding('utf8')
    socket.on('data', (chunk: string) => {
      input += chunk
      if (input.length > MAX_BYTES) socket.destroy()
      const end = input.indexOf('\n')
      if (end < 0) return
      socket.removeAllListeners('data')
      let command: ForwardedCommand
      try {
        command = JSON.parse(input.slice(0, end)) as ForwardedCommand
        if (!Array.isArray(command.argv) || command.argv.some((a) => typeof a !== 'string')) throw new Error()
      } catch {
        socket.end(`${JSON.stringify({ stdout: '', stderr: 'hearth: unreadable command\n', code: 2 })}\n`)
        return
      }
      run(command).then(
        (answer) => socket.end(`${JSON.stringify(answer)}\n`),
        (error) =>
          socket.end(`${JSON.stringify({ stdout: '', stderr: `hearth: ${String(error)}\n`, code: 1 })}\n`),
      )
    })
    socket.on('error', () => {})
  })
  const umask = process.umask(0o177)
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(path, () => resolve())
    })
  } finally {
    process.umask(umask)
  }
  chmodSync(path, 0o600)
  return () =>
    new Promise<void>((resolve) => {
      server.close(() => resolve())
      rmSync(path, { force: true })
    })
}

/**
 * Sends a command to the server running on `dataDir` and answers what it printed, or null when
 * no server listens there (no socket, or a dead one's).
 */
export function forwardToServer(dataDir: string, command: ForwardedCommand): Promise<ForwardedAnswer | null> {
  return new Promise((resolve, reject) => {
    const socket = createConnection(join(dataDir, CONTROL_SOCKET))
    let output = ''
    let connected = false
    socket.setEncoding('utf8')
    socket.on('connect', () => {
      connected = true
      socket.write(`${JSON.stringify(command)}\n`)
    })
    socket.on('data', (chunk: string) => {
      output += chunk
      if (output.length > MAX_BYTES) socket.destroy(new Error('The server answered more than 4 MB.'))
    })
    socket.on('end', () => {
      try {
        resolve(JSON.parse(output) as ForwardedAnswer)
      } catch {
        reject(new Error('The running server gave no answer to the command.'))
      }
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      if (!connected && (error.code === 'ENOENT' || error.code === 'ECONNREFUSED')) resolve(null)
      else reject(error)
    })
  })
}
