import nodemailer from 'nodemailer'

/** Sends sign-in mail (reset links, email verification links) when SMTP is configured (`HEARTH_SMTP_URL`, `HEARTH_SMTP_FROM`). */
export interface SignInMailer {
  sendResetLink(to: string, url: string, expiresAt: string): Promise<void>
  sendEmailVerification(to: string, url: string, expiresAt: string): Promise<void>
}

/** A mailer over `smtpUrl`, or null when none is configured. */
export function signInMailer(smtp: { url?: string; from: string } | undefined): SignInMailer | null {
  if (!smtp?.url) return null
  const transport = nodemailer.createTransport(smtp.url)
  return {
    async sendResetLink(to, url, expiresAt) {
      await transport.sendMail({
        from: smtp.from,
        to,
        subject: 'Set your Hearth password',
        text:
          `An owner of your Hearth household issued you a link to set a new password:\n\n${url}\n\n` +
          `It works once, until ${expiresAt}. Setting a password signs you out everywhere else.\n` +
          'If you did not expect this, tell the owner; your current password keeps working until the link is used.',
      })
    },
    async sendEmailVerification(to, url, expiresAt) {
      await transport.sendMail({
        from: smtp.from,
        to,
        subject: 'Verify your email for Hearth',
        text:
          `Your Hearth account now has this email. To verify that it is yours, follow this link:\n\n${url}\n\n` +
          `It works once, until ${expiresAt}. If you did not set this email in Hearth, ignore this message: ` +
          'nothing is verified until the link is followed.',
      })
    },
  }
}
