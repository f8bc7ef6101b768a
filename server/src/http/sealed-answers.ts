import { hkdfSync, randomBytes } from 'node:crypto'
import { type SecretBox, secretBox } from '../webhooks/secret-box.ts'

const SEALED = 'sealed:'

/**
 * Seals the one secret a stored idempotent answer carries (a new API key, an invitation code, a
 * webhook secret), so the store and its backups never hold it in clear, and opens it for a replay.
 */
export interface AnswerSeal {
  /** Whether answers sealed now open after a restart and on other instances (a key is configured). */
  readonly lasting: boolean
  /** The answer's JSON body with the string at `field` sealed. */
  seal(body: string, field: string): string
  /** The body as first sent, or null when its secret can no longer be opened (the key changed). */
  open(body: string, field: string): string | null
  /** The resource of a sealed body without its secret, for a replay that cannot show it. */
  withoutSecret(body: string, field: string): Record<string, unknown>
}

/**
 * AES-256-GCM under a key derived (HKDF-SHA-256) from the server key (`HEARTH_WEBHOOK_SECRET_KEY`),
 * apart from the key that seals webhook secrets. Without a server key, a random key this process
 * holds in memory only: a retry to the same process gets its secret, a retry after a restart or
 * at another instance gets 410 `SECRET_NOT_REPLAYABLE` (docs/security.md). Answers sealed under
 * `previousServerKey` (`HEARTH_WEBHOOK_SECRET_KEY_PREVIOUS`) still open after a rotation.
 */
export function answerSeal(serverKey: string | undefined, previousServerKey?: string): AnswerSeal {
  const derive = (k: string) =>
    Buffer.from(hkdfSync('sha256', k, '', 'hearth idempotent answers', 32)).toString('base64')
  const key = serverKey ? derive(serverKey) : randomBytes(32).toString('base64')
  const box: SecretBox = secretBox(key, previousServerKey ? derive(previousServerKey) : undefined)
  return {
    lasting: serverKey !== undefined,
    seal(body, field) {
      const answer = JSON.parse(body) as Record<string, unknown>
      const secret = answer[field]
      if (typeof secret !== 'string') throw new Error(`The answer has no secret at "${field}" to seal.`)
      answer[field] = `${SEALED}${box.seal(secret)}`
      return JSON.stringify(answer)
    },
    open(body, field) {
      const answer = JSON.parse(body) as Record<string, unknown>
      const sealed = answer[field]
      if (typeof sealed !== 'string' || !sealed.startsWith(SEALED)) return body
      try {
        answer[field] = box.open(sealed.slice(SEALED.length))
      } catch {
        return null
      }
      return JSON.stringify(answer)
    },
    withoutSecret(body, field) {
      const { [field]: _secret, ...resource } = JSON.parse(body) as Record<string, unknown>
      return resource
    },
  }
}
