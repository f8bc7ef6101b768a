import { readFileSync } from 'node:fs'
import { join } from 'node:path'

/** The shortest password accepted. */
export const MIN_PASSWORD_LENGTH = 12

/** Longer than this is refused too: scrypt's cost grows with it, and nobody types 256 characters. */
export const MAX_PASSWORD_LENGTH = 256

let common: Set<string> | undefined

/**
 * The list of common passwords shipped beside this file (`common-passwords.txt`, Openwall's
 * public-domain list of 3,546 passwords seen most often), lower-cased; read once, on first use.
 */
function commonPasswords(): Set<string> {
  common ??= new Set(
    readFileSync(join(import.meta.dirname, 'common-passwords.txt'), 'utf8')
      .split('\n')
      .filter((line) => line !== '' && !line.startsWith('#!comment'))
      .map((line) => line.trim().toLowerCase()),
  )
  return common
}

/**
 * Whether a password is on the list, as it is, with digits or symbols added before or after
 * (`password2024!`), or as one listed password repeated (`letmeinletmein`): the forms a 12-character
 * minimum pushes common passwords into.
 */
export function isCommon(password: string): boolean {
  const list = commonPasswords()
  const lower = password.trim().toLowerCase()
  const stripped = lower.replace(/^[\d\W_]+/, '').replace(/[\d\W_]+$/, '')
  if (list.has(lower) || list.has(stripped)) return true
  for (let size = 1; size <= stripped.length / 2; size++) {
    const unit = stripped.slice(0, size)
    if (stripped.length % size === 0 && unit.repeat(stripped.length / size) === stripped && list.has(unit)) {
      return true
    }
  }
  return false
}

/** Why a password is refused, or null when it may be used. */
export function passwordProblem(password: string): string | null {
  const length = [...password].length
  if (length < MIN_PASSWORD_LENGTH) {
    return `Use at least ${MIN_PASSWORD_LENGTH} characters; this one has ${length}.`
  }
  if (length > MAX_PASSWORD_LENGTH) return `Use at most ${MAX_PASSWORD_LENGTH} characters.`
  if (isCommon(password)) {
    return 'This password is a common password (or one with digits or symbols added); choose another.'
  }
  if (new Set(password).size < 3) return 'This password repeats one or two characters; choose another.'
  return null
}
