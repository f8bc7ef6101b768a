import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'
import { afterAll, beforeAll } from 'vitest'

/** One message the inbox was given: its recipients, as sent, and with quoted-printable undone enough to read a link. */
export interface ReceivedMail {
  to: string[]
  raw: string
  text: string
}

export interface SmtpInbox {
  /** Every message received, oldest first; a test may empty it (`mail.length = 0`). */
  readonly mail: ReceivedMail[]
  /** The server's mail settings for this inbox (read once the inbox listens: in or after `beforeAll`). */
  readonly settings: { smtpUrl: string; smtpFrom: string }
}

/**
 * A real SMTP server on loopback for the file's tests, listening from `beforeAll` to `afterAll`,
 * that keeps every message it is given. Call it before `useTestServer`, whose config reads
 * `settings` in its own `beforeAll`.
 */
export function useSmtpInbox(): SmtpInbox {
  const mail: ReceivedMail[] = []
  const smtp = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (c: Buffer) => chunks.push(c))
      stream.on('end', () => {
        const raw = Buffer.concat(chunks).toString('utf8')
        mail.push({
          to: session.envelope.rcptTo.map((r) => r.address),
          raw,
          // Soft line breaks and `=`, which is all a link needs.
          text: raw.replace(/=\r\n/g, '').replace(/=3D/g, '='),
        })
        callback()
      })
    },
  })
  let port = 0
  beforeAll(async () => {
    await new Promise<void>((resolve) => smtp.listen(0, '127.0.0.1', resolve))
    port = (smtp.server.address() as AddressInfo).port
  })
  afterAll(async () => {
    await new Promise<void>((resolve) => smtp.close(() => resolve()))
  })
  return {
    mail,
    get settings() {
      if (!port)
        throw new Error('useSmtpInbox: the inbox listens from beforeAll; read settings there or later.')
      return { smtpUrl: `smtp://127.0.0.1:${port}`, smtpFrom: 'Hearth <hearth@example.test>' }
    },
  }
}
