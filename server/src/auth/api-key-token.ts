import { createHash, randomBytes } from 'node:crypto'

/** A freshly minted key: the secret for the caller, the hash and prefix for the store. */
export interface MintedKey {
  token: string
  hash: string
  prefix: string
}

const TOKEN_PREFIX = 'hth_'

/** Mints a 256-bit random key, or wraps a given token (HEARTH_INIT_OWNER_TOKEN). */
export function mintApiKey(token = `${TOKEN_PREFIX}${randomBytes(32).toString('base64url')}`): MintedKey {
  return { token, hash: hashApiKey(token), prefix: token.slice(0, 8) }
}

/** Keys are high-entropy, so a plain SHA-256 is the right hash: fast to check, useless to reverse. */
export function hashApiKey(token: string): string {
  return createHash('sha256').update(token).digest('hex')
}

/** Mints a single-use invitation code (192 random bits); stored hashed like a key. */
export function mintInvitationCode(): MintedKey {
  const token = `hinv_${randomBytes(24).toString('base64url')}`
  return { token, hash: hashApiKey(token), prefix: token.slice(0, 9) }
}

/** The key in an `Authorization: Bearer <key>` header, or undefined when there is none. */
export function bearerToken(header: string | undefined): string | undefined {
  return /^Bearer\s+(\S+)\s*$/i.exec(header ?? '')?.[1]
}
