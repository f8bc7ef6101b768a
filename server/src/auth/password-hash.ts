import { randomBytes, type ScryptOptions, scrypt, timingSafeEqual } from 'node:crypto'

/**
 * The scrypt cost every new password hash is made with (docs/security.md): N = 2^15, r = 8, p = 1
 * uses 32 MiB and about 140 ms of one core here, within the 50–250 ms a sign-in may spend on it.
 * Each hash records its own parameters, so raising them later leaves older hashes verifiable.
 */
export const SCRYPT_PARAMS = { N: 2 ** 15, r: 8, p: 1 } as const

const KEY_BYTES = 32
const SALT_BYTES = 16

function derive(
  password: string,
  salt: Buffer,
  params: { N: number; r: number; p: number },
): Promise<Buffer> {
  const options: ScryptOptions = { ...params, maxmem: 256 * params.N * params.r * params.p }
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, KEY_BYTES, options, (error, key) =>
      error ? reject(error) : resolve(key),
    ),
  )
}

/** Hashes a password with a fresh salt: `scrypt$N$r$p$<salt>$<hash>`, base64url. */
export async function hashPassword(password: string, params = SCRYPT_PARAMS): Promise<string> {
  const salt = randomBytes(SALT_BYTES)
  const key = await derive(password, salt, params)
  return `scrypt$${params.N}$${params.r}$${params.p}$${salt.toString('base64url')}$${key.toString('base64url')}`
}

/** Whether `password` matches `stored`; a malformed hash matches nothing. Constant time in the key. */
export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$')
  if (scheme !== 'scrypt' || !salt || !hash) return false
  const params = { N: Number(n), r: Number(r), p: Number(p) }
  if (![params.N, params.r, params.p].every((v) => Number.isSafeInteger(v) && v > 0)) return false
  const expected = Buffer.from(hash, 'base64url')
  const actual = await derive(password, Buffer.from(salt, 'base64url'), params)
  return expected.length === actual.length && timingSafeEqual(expected, actual)
}

/**
 * A hash of nothing anyone knows, checked when an email has no password, so a sign-in with an
 * unknown email costs what a wrong password costs and the answer's timing tells nothing.
 */
let decoy: Promise<string> | undefined
export function decoyHash(): Promise<string> {
  decoy ??= hashPassword(randomBytes(16).toString('hex'))
  return decoy
}
