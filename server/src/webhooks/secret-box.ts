import { createCipheriv, createDecipheriv, createHash, randomBytes } from 'node:crypto'

/** Seals webhook secrets for the database and opens them for signing. */
export interface SecretBox {
  /** Whether sealed secrets are encrypted (a key is configured) or only marked as plain. */
  readonly encrypted: boolean
  seal(secret: string): string
  open(sealed: string): string
  /** Whether `sealed` is sealed under the current key (not plain, not under the previous key). */
  sealedNow(sealed: string): boolean
}

/** A new Standard Webhooks secret: `whsec_` and 32 random bytes in base64. */
export function mintWebhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

/**
 * AES-256-GCM under a key derived (SHA-256) from `HEARTH_WEBHOOK_SECRET_KEY`, so a database dump
 * alone does not reveal a secret. Without a key, secrets are stored marked `plain:` and the server
 * warns; a key set later still opens them, and seals every new or rotated one. `previousKey`
 * (`HEARTH_WEBHOOK_SECRET_KEY_PREVIOUS`) opens what was sealed before a rotation of the key.
 */
export function secretBox(key: string | undefined, previousKey?: string): SecretBox {
  const aesKey = key ? createHash('sha256').update(key).digest() : null
  const previousAesKey = previousKey ? createHash('sha256').update(previousKey).digest() : null
  const openWith = (aes: Buffer, iv: string, tag: string, body: string) => {
    const decipher = createDecipheriv('aes-256-gcm', aes, Buffer.from(iv, 'base64'))
    decipher.setAuthTag(Buffer.from(tag, 'base64'))
    return Buffer.concat([decipher.update(Buffer.from(body, 'base64')), decipher.final()]).toString('utf8')
  }
  const parts = (sealed: string) => {
    const [version, iv, tag, body] = sealed.split(':')
    if (version !== 'v1' || !iv || !tag || body === undefined) throw new Error('Unreadable sealed secret.')
    return [iv, tag, body] as const
  }
  return {
    encrypted: aesKey !== null,
    seal(secret) {
      if (!aesKey) return `plain:${secret}`
      const iv = randomBytes(12)
      const cipher = createCipheriv('aes-256-gcm', aesKey, iv)
      const body = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()])
      return `v1:${iv.toString('base64')}:${cipher.getAuthTag().toString('base64')}:${body.toString('base64')}`
    },
    open(sealed) {
      if (sealed.startsWith('plain:')) return sealed.slice('plain:'.length)
      const [iv, tag, body] = parts(sealed)
      if (!aesKey) {
        throw new Error('This secret was sealed with HEARTH_WEBHOOK_SECRET_KEY, which is not set now.')
      }
      try {
        return openWith(aesKey, iv, tag, body)
      } catch (error) {
        if (!previousAesKey) throw error
        return openWith(previousAesKey, iv, tag, body)
      }
    },
    sealedNow(sealed) {
      if (!aesKey || sealed.startsWith('plain:')) return false
      try {
        const [iv, tag, body] = parts(sealed)
        openWith(aesKey, iv, tag, body)
        return true
      } catch {
        return false
      }
    },
  }
}
