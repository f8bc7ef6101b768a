import { type ChildProcess, spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, describe, expect, it } from 'vitest'
import { DataDirLockedError, lockDataDir } from './data-dir-lock.ts'

const folders: string[] = []
const children: ChildProcess[] = []

afterEach(() => {
  for (const child of children.splice(0)) child.kill('SIGKILL')
  for (const dir of folders.splice(0)) rmSync(dir, { recursive: true, force: true })
})

function tempFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'hearth-lock-'))
  folders.push(dir)
  return dir
}

/** A process that takes the lock on `dir`, says `held`, and waits to be killed. */
async function holderProcess(dir: string): Promise<ChildProcess> {
  const lock = new URL('./data-dir-lock.ts', import.meta.url).pathname
  const code = `import { lockDataDir } from ${JSON.stringify(lock)}
lockDataDir(${JSON.stringify(dir)}); process.stdout.write('held\\n'); setInterval(() => {}, 1000)`
  const child = spawn(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', code], {
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  children.push(child)
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (chunk: Buffer) => chunk.toString().includes('held') && resolve())
    child.once('exit', (code) => reject(new Error(`The lock holder exited with ${code}`)))
  })
  return child
}

describe('the data-folder lock', () => {
  it('refuses a second holder in the same process until the first releases', () => {
    const dir = tempFolder()
    const release = lockDataDir(dir)
    expect(() => lockDataDir(dir)).toThrow(DataDirLockedError)
    expect(() => lockDataDir(dir)).toThrow(`(pid ${process.pid})`)
    release()
    lockDataDir(dir)()
  })

  it('refuses a live holder in another process, naming its pid', async () => {
    const dir = tempFolder()
    const holder = await holderProcess(dir)
    const error = (() => {
      try {
        lockDataDir(dir)
      } catch (e) {
        return e
      }
    })()
    expect(error).toBeInstanceOf(DataDirLockedError)
    expect((error as DataDirLockedError).pid).toBe(holder.pid)
  }, 30_000)

  it('is free the moment its holder is killed with SIGKILL', async () => {
    const dir = tempFolder()
    const holder = await holderProcess(dir)
    const exited = new Promise((resolve) => holder.once('exit', resolve))
    holder.kill('SIGKILL')
    await exited
    lockDataDir(dir)()
  }, 30_000)

  it('trusts no pid: a lock file naming a live process that holds no lock is taken', () => {
    const dir = tempFolder()
    // The parent process is alive, as an unreaped or pid-reusing holder would look to kill(pid, 0).
    writeFileSync(join(dir, 'hearth.lock'), String(process.ppid))
    const release = lockDataDir(dir)
    release()
  })
})
