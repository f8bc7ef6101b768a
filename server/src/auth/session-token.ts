import { randomBytes } from 'node:crypto'
import { hashApiKey, type MintedKey } from './api-key-token.ts'

/** Mints a session's secret (256 random bits), which only the cookie holds; stored hashed like a key. */
export function mintSessionToken(): MintedKey {
  const token = `hss_${randomBytes(32).toString('base64url')}`
  return { token, hash: hashApiKey(token), prefix: token.slice(0, 8) }
}

/** Mints a setup or reset link's code (192 random bits); stored hashed like a key. */
export function mintLinkCode(): MintedKey {
  const token = `hsl_${randomBytes(24).toString('base64url')}`
  return { token, hash: hashApiKey(token), prefix: token.slice(0, 8) }
}

/** Mints an SDK device's access token and refresh token (256 random bits each); stored hashed like a key. */
export function mintDeviceTokens(): { access: MintedKey; refresh: MintedKey } {
  const access = `hda_${randomBytes(32).toString('base64url')}`
  const refresh = `hdr_${randomBytes(32).toString('base64url')}`
  return {
    access: { token: access, hash: hashApiKey(access), prefix: access.slice(0, 8) },
    refresh: { token: refresh, hash: hashApiKey(refresh), prefix: refresh.slice(0, 8) },
  }
}
