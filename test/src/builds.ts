import { readdirSync, statSync } from 'node:fs'
import { join } from 'node:path'

const ROOT = join(import.meta.dirname, '..', '..')

/**
 * Whether a build must run again: one of its outputs is missing, or a file under one of its
 * inputs (files or folders, relative to the repository) changed after the oldest output was
 * written. CI runs the suite twice in one clone (PGlite, then PostgreSQL): the second run reuses
 * what the first built, and an edited source builds again.
 */
export function stale(outputs: string[], inputs: string[]): boolean {
  const written = outputs.map((f) => statSync(join(ROOT, f), { throwIfNoEntry: false })?.mtimeMs)
  if (written.some((at) => at === undefined)) return true
  const oldest = Math.min(...(written as number[]))
  return inputs.some((input) => changedAfter(join(ROOT, input), oldest))
}

function changedAfter(path: string, at: number): boolean {
  const stat = statSync(path, { throwIfNoEntry: false })
  if (!stat) return false
  if (!stat.isDirectory()) return stat.mtimeMs > at
  return readdirSync(path, { recursive: true, withFileTypes: true }).some(
    (e) => e.isFile() && statSync(join(e.parentPath, e.name)).mtimeMs > at,
  )
}
