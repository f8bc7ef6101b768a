import { EngineError, newUlid, operations, runMutation, type Store } from '@hearth/engine'
import type { Context } from 'hono'
import { failureSource } from '../http/rate-limits.ts'
import { FailureBackoff } from './failure-backoff.ts'
import type { SessionSettings } from './session-settings.ts'
import { mintLinkCode } from './session-token.ts'
import type { SignInMailer } from './sign-in-mail.ts'

/** How long a mailed verification link works. */
export const EMAIL_VERIFICATION_HOURS = 24

/**
 * How many verification mails go out, per person, per email address and per client address: 3
 * a person or an email in 15 minutes, 10 an address, then blocks of 15 minutes doubling up to an
 * hour (docs/api/sign-in.md#email-verification), so nobody can make the server mail-bomb an inbox.
 */
function sendBackoff(limit: number, clock: () => number): FailureBackoff {
  return new FailureBackoff({ limit, windowMs: 15 * 60_000, maxBlockMs: 3_600_000 }, clock)
}

/** The app's page that verifies an email with a link's code: `/app/verify-email?code=…`. */
export function emailVerificationUrl(origin: string, code: string): string {
  return `${origin}/app/verify-email?code=${encodeURIComponent(code)}`
}

/**
 * Mails people a one-time link that verifies their email, when the server sends mail
 * (`HEARTH_SMTP_URL`): at sign-up with an invitation or a setup link, after an email change, and
 * when the person asks again. Without SMTP it sends nothing.
 */
export class EmailVerifier {
  private readonly byPerson: FailureBackoff
  private readonly byEmail: FailureBackoff
  private readonly byAddress: FailureBackoff

  constructor(
    private readonly store: Store,
    private readonly settings: SessionSettings,
    readonly mailer: SignInMailer | null,
    clock: () => number = Date.now,
  ) {
    this.byPerson = sendBackoff(3, clock)
    this.byEmail = sendBackoff(3, clock)
    this.byAddress = sendBackoff(10, clock)
  }

  /**
   * Issues and mails a link for `userId`'s current email: the email and the link's end. 409
   * `MAIL_NOT_CONFIGURED` without SMTP, `NO_EMAIL` or `EMAIL_ALREADY_VERIFIED` (engine), 429
   * `RATE_LIMITED` past the limits, 502 `MAIL_NOT_SENT` when the SMTP server refused it.
   */
  async send(c: Context, userId: string): Promise<{ email: string; expiresAt: string }> {
    if (!this.mailer) {
      throw new EngineError(
        409,
        'MAIL_NOT_CONFIGURED',
        'This server sends no mail (no HEARTH_SMTP_URL), so it cannot verify an email.',
      )
    }
    const user = await this.store.db
      .selectFrom('users')
      .select(['email', 'email_verified_at'])
      .where('id', '=', userId)
      .executeTakeFirst()
    // Nothing to send is refused before anything is counted (the operation checks again).
    if (!user?.email) throw new EngineError(409, 'NO_EMAIL', 'You have no email to verify; set one first.')
    if (user.email_verified_at)
      throw new EngineError(409, 'EMAIL_ALREADY_VERIFIED', `${user.email} is verified already.`)
    const address = failureSource((c.get('clientAddress' as never) as string | undefined) ?? 'unknown')
    const email = user.email.toLowerCase()
    const blocked = Math.max(
      this.byPerson.blockedFor(userId),
      this.byAddress.blockedFor(address),
      this.byEmail.blockedFor(email),
    )
    if (blocked > 0) throw rateLimited(blocked)
    const wait = Math.max(
      this.byPerson.failed(userId),
      this.byAddress.failed(address),
      this.byEmail.failed(email),
    )
    // Past a limit nothing is issued: the person's last link keeps working.
    if (wait > 0) throw rateLimited(wait)
    const code = mintLinkCode()
    const expiresAt = new Date(Date.now() + EMAIL_VERIFICATION_HOURS * 3_600_000).toISOString()
    const { result } = await runMutation(
      this.store.db,
      operations.emailVerifications.send,
      { id: newUlid(), codeHash: code.hash, expiresAt },
      // The server mails the person's own link on their behalf (at sign-up too, before any key).
      { userId, scopes: ['write:profile'], now: new Date() },
    )
    const origin = this.settings.publicUrl ?? new URL(c.req.url).origin
    try {
      await this.mailer.sendEmailVerification(
        result.email,
        emailVerificationUrl(origin, code.token),
        expiresAt,
      )
    } catch (err) {
      c.get('logger' as never)?.warn({ err }, 'sending an email verification link failed')
      throw new EngineError(
        502,
        'MAIL_NOT_SENT',
        'The mail server did not take the message; try again later.',
      )
    }
    return { email: result.email, expiresAt }
  }

  /**
   * Mails a link when the server sends mail and `userId` has an unverified email; a refusal (no
   * mail, a limit, a mail server down) is logged, not raised: the person can send one again.
   */
  async offer(c: Context, userId: string): Promise<boolean> {
    if (!this.mailer) return false
    try {
      await this.send(c, userId)
      return true
    } catch (err) {
      if (err instanceof EngineError && (err.code === 'EMAIL_ALREADY_VERIFIED' || err.code === 'NO_EMAIL'))
        return false
      c.get('logger' as never)?.warn({ err }, 'no email verification link was mailed')
      return false
    }
  }
}

function rateLimited(waitMs: number): EngineError {
  return new EngineError(429, 'RATE_LIMITED', 'Too many verification mails lately; wait and try again.', {
    extra: { headers: { 'retry-after': String(Math.max(1, Math.ceil(waitMs / 1000))) } },
  })
}
