import {
  EmailVerificationSentSchema,
  ProblemSchema,
  VerifiedEmailSchema,
  VerifyEmailBodySchema,
} from '@hearth/contracts'
import { emailVerificationUser, operations, runMutation, type Store } from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { hashApiKey } from '../auth/api-key-token.ts'
import { EMAIL_VERIFICATION_HOURS, type EmailVerifier } from '../auth/email-verification.ts'
import type { AppEnv } from '../http/env.ts'
import type { AuthFailures } from '../http/rate-limits.ts'
import { jsonBody, jsonResponse } from '../http/route.ts'
import { requireScope } from '../http/scope.ts'
import { refuseCrossSite } from './sessions.ts'
import { linkUserOrRefuse, refuseBodyFields } from './sign-in-links.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }
const problemAnswer = (description: string) => ({ description, content: problemContent })

/** What the verification routes need from the app. */
export interface EmailVerificationRouteOptions {
  store: Store
  authFailures: AuthFailures
  corsOrigins: '*' | readonly string[]
  verifier: EmailVerifier
}

const verify = createRoute({
  method: 'post',
  path: '/email-verifications/verify',
  operationId: 'emailVerifications.verify',
  tags: ['Sign-in'],
  summary: 'Verify your email with a mailed link',
  description:
    'Uses the code of the link mailed to your email (`/app/verify-email?code=…`) and marks that email verified ' +
    '(`emailVerifiedAt` on `GET /users/me`). Needs no sign-in: the code is the proof. A link works once, until ' +
    `it expires (${EMAIL_VERIFICATION_HOURS} h), and only while the email is still the one it was mailed to.`,
  security: [{}],
  request: { query: z.strictObject({}), body: jsonBody(VerifyEmailBodySchema) },
  responses: {
    200: jsonResponse(VerifiedEmailSchema, 'Your email is verified.'),
    400: problemAnswer('Invalid input: `VALIDATION_FAILED`, `MALFORMED_JSON`.'),
    403: problemAnswer('Posted by another site’s page: `CROSS_SITE_REFUSED`.'),
    404: problemAnswer('No link has this code: `NOT_FOUND`.'),
    410: problemAnswer(
      'The link was used or replaced by a newer one (`LINK_USED`), has expired (`LINK_EXPIRED`), or was mailed to an email you no longer have (`EMAIL_CHANGED`).',
    ),
    429: problemAnswer(
      'A wrong code from an address with too many failures lately (`RATE_LIMITED`, with `Retry-After`).',
    ),
  },
})

const send = createRoute({
  method: 'post',
  path: '/users/me/email-verification',
  operationId: 'emailVerifications.send',
  tags: ['Sign-in'],
  summary: 'Mail yourself a link to verify your email',
  description:
    `Mails a one-time link (valid ${EMAIL_VERIFICATION_HOURS} h) to your email, which verifies it when followed; ` +
    'an earlier unused link stops working. The server mails one by itself when you sign up with an email and when ' +
    'you change it; this sends it again. Only when the server sends mail (`HEARTH_SMTP_URL`). At most 3 in 15 minutes ' +
    'per person and per email, and 10 per client address. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}) },
  responses: {
    202: jsonResponse(EmailVerificationSentSchema, 'The link is on its way.'),
    400: problemAnswer('A query parameter or a body field was sent: `VALIDATION_FAILED`.'),
    401: problemAnswer('Not signed in: `UNAUTHENTICATED`.'),
    403: problemAnswer(
      'The key lacks the scope (`INSUFFICIENT_SCOPE`), or the cookie came from another site (`CROSS_SITE_REFUSED`).',
    ),
    409: problemAnswer(
      'You have no email (`NO_EMAIL`), it is verified already (`EMAIL_ALREADY_VERIFIED`), or the server sends no mail (`MAIL_NOT_CONFIGURED`).',
    ),
    429: problemAnswer('Too many verification mails lately (`RATE_LIMITED`, with `Retry-After`).'),
    502: problemAnswer('The mail server did not take the message: `MAIL_NOT_SENT`.'),
  },
})

/** Verifying an email with a mailed link, and mailing the link again; and mailing one after an email change. */
export function emailVerificationRoutes({
  store,
  authFailures,
  corsOrigins,
  verifier,
}: EmailVerificationRouteOptions) {
  const app = new OpenAPIHono<AppEnv>()

  // A changed email (PATCH /users/me) is mailed a link, after the change is made.
  app.use('/users/me', async (c, next) => {
    const caller = c.req.method === 'PATCH' && verifier.mailer ? c.get('caller') : undefined
    if (!caller) return next()
    const before = await store.db
      .selectFrom('users')
      .select('email')
      .where('id', '=', caller.userId)
      .executeTakeFirst()
    await next()
    if (c.res.status !== 200) return
    const after = await store.db
      .selectFrom('users')
      .select(['email', 'email_verified_at'])
      .where('id', '=', caller.userId)
      .executeTakeFirst()
    if (
      after?.email &&
      !after.email_verified_at &&
      after.email.toLowerCase() !== before?.email?.toLowerCase()
    )
      await verifier.offer(c, caller.userId)
  })

  app.openapi(verify, async (c) => {
    const body = c.req.valid('json' as never) as z.output<typeof VerifyEmailBodySchema>
    refuseCrossSite(c, corsOrigins)
    const codeHash = hashApiKey(body.code)
    const userId = await linkUserOrRefuse(c, store, authFailures, codeHash, emailVerificationUser)
    const { result } = await runMutation(
      store.db,
      operations.emailVerifications.verify,
      { codeHash },
      { userId, scopes: [], now: new Date() },
    )
    return c.json(result, 200)
  })

  app.openapi(send, async (c) => {
    await refuseBodyFields(c)
    const sent = await verifier.send(c, c.get('caller').userId)
    return c.json(sent, 202)
  })
  return app
}
