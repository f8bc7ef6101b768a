import {
  ConfirmTotpBodySchema,
  FactorProofBodySchema,
  ProblemSchema,
  RecoveryCodesSchema,
  TotpEnrolmentSchema,
  TotpStatusSchema,
} from '@hearth/contracts'
import { EngineError, operations, runMutation, runQuery, type Store, totpFactorOf } from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { proveItIsYou } from '../auth/second-factor.ts'
import { mintRecoveryCodes, mintTotpSecret, totpStepOf } from '../auth/totp.ts'
import { type AppEnv, actorContext } from '../http/env.ts'
import { jsonBody, jsonResponse } from '../http/route.ts'
import { requireScope } from '../http/scope.ts'
import type { SecretBox } from '../webhooks/secret-box.ts'
import { refuseBodyFields } from './sign-in-links.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }
const problemAnswer = (description: string) => ({ description, content: problemContent })
const signedIn = {
  401: problemAnswer('Not signed in: `UNAUTHENTICATED`.'),
  403: problemAnswer(
    'The key lacks the scope (`INSUFFICIENT_SCOPE`), or the cookie came from another site (`CROSS_SITE_REFUSED`).',
  ),
}

const status = createRoute({
  method: 'get',
  path: '/users/me/totp',
  operationId: 'totp.get',
  tags: ['Sign-in'],
  summary: 'Your authenticator app',
  description:
    'Whether sign-in asks you for a code of an authenticator app, and how many recovery codes are left. Requires scope `read:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('read:profile')],
  request: { query: z.strictObject({}) },
  responses: {
    200: jsonResponse(TotpStatusSchema, 'Your second factor.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    ...signedIn,
  },
})

const begin = createRoute({
  method: 'post',
  path: '/users/me/totp',
  operationId: 'totp.begin',
  tags: ['Sign-in'],
  summary: 'Add an authenticator app',
  description:
    'A new TOTP secret (RFC 6238: SHA-1, 6 digits, 30 s), shown once as base32 and as an `otpauth://` URI. It counts only once confirmed with a first code; beginning again replaces an unconfirmed one. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}) },
  responses: {
    201: jsonResponse(TotpEnrolmentSchema, 'The secret, to type or paste into the app.'),
    400: problemAnswer('A query parameter was sent: `VALIDATION_FAILED`.'),
    ...signedIn,
    409: problemAnswer('You have an authenticator app already: `TOTP_ALREADY_ENROLLED`.'),
  },
})

const confirm = createRoute({
  method: 'post',
  path: '/users/me/totp/confirm',
  operationId: 'totp.confirm',
  tags: ['Sign-in'],
  summary: 'Turn on an authenticator app',
  description:
    'Confirms the secret `POST /users/me/totp` gave with a code it shows now: sign-in asks for a code from here on. Answers ten recovery codes, shown once; every other session of yours ends. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}), body: jsonBody(ConfirmTotpBodySchema) },
  responses: {
    200: jsonResponse(RecoveryCodesSchema, 'On; the recovery codes.'),
    400: problemAnswer(
      'Invalid input (`VALIDATION_FAILED`, `MALFORMED_JSON`), or a wrong code (`TOTP_CODE_INVALID`).',
    ),
    ...signedIn,
    409: problemAnswer('No authenticator app is waiting to be confirmed: `TOTP_NOT_PENDING`.'),
  },
})

const remove = createRoute({
  method: 'post',
  path: '/users/me/totp/remove',
  operationId: 'totp.remove',
  tags: ['Sign-in'],
  summary: 'Remove your authenticator app',
  description:
    'Removes your authenticator app and its recovery codes, given your password, a code it shows, or a recovery code. Every other session of yours ends. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}), body: jsonBody(FactorProofBodySchema) },
  responses: {
    200: jsonResponse(z.object({ sessionsEnded: z.int() }), 'Removed.'),
    400: problemAnswer('Invalid input: `VALIDATION_FAILED`, `MALFORMED_JSON`.'),
    401: problemAnswer(
      'Not signed in, or the proof is wrong: `UNAUTHENTICATED` (password), `TOTP_CODE_INVALID`, `TOTP_CODE_USED`, `RECOVERY_CODE_INVALID`, `RECOVERY_CODE_USED`.',
    ),
    403: signedIn[403],
    404: problemAnswer('You have no authenticator app: `NOT_FOUND`.'),
  },
})

const regenerate = createRoute({
  method: 'post',
  path: '/users/me/totp/recovery-codes',
  operationId: 'recoveryCodes.regenerate',
  tags: ['Sign-in'],
  summary: 'New recovery codes',
  description:
    'Ten new recovery codes, shown once, given your password, a code of your authenticator app, or a recovery code; the old ones stop working and every other session of yours ends. Requires scope `write:profile`.',
  security: [{ bearerAuth: [] }],
  middleware: [requireScope('write:profile')],
  request: { query: z.strictObject({}), body: jsonBody(FactorProofBodySchema) },
  responses: {
    200: jsonResponse(RecoveryCodesSchema, 'The new recovery codes.'),
    400: problemAnswer('Invalid input: `VALIDATION_FAILED`, `MALFORMED_JSON`.'),
    401: remove.responses[401],
    403: signedIn[403],
    404: problemAnswer('You have no authenticator app: `NOT_FOUND`.'),
  },
})

/** Your authenticator app (TOTP) and its recovery codes; docs/api/sign-in.md. */
export function secondFactorRoutes({ store, box }: { store: Store; box: SecretBox }) {
  const app = new OpenAPIHono<AppEnv>()
  const keep = (c: { get(key: 'caller'): { kind: string; keyId: string } }) => {
    const caller = c.get('caller')
    return caller.kind === 'session' ? caller.keyId : null
  }

  app.openapi(status, async (c) =>
    c.json(await runQuery(store.db, operations.totp.get, {}, actorContext(c.var)), 200),
  )

  app.openapi(begin, async (c) => {
    await refuseBodyFields(c)
    const { userId } = c.get('caller')
    const { email } = await runQuery(store.db, operations.profile.get, {}, actorContext(c.var))
    const minted = mintTotpSecret(email ?? userId)
    await runMutation(
      store.db,
      operations.totp.begin,
      { secretSealed: box.seal(minted.secret) },
      actorContext(c.var),
    )
    return c.json(minted, 201)
  })

  app.openapi(confirm, async (c) => {
    const { code } = c.req.valid('json' as never) as z.output<typeof ConfirmTotpBodySchema>
    const factor = await totpFactorOf(store.db, c.get('caller').userId)
    if (!factor || factor.confirmed) {
      throw new EngineError(
        409,
        'TOTP_NOT_PENDING',
        'No authenticator app is waiting to be confirmed; start again.',
      )
    }
    const step = totpStepOf(box.open(factor.secretSealed), code)
    if (step === null) {
      throw new EngineError(
        400,
        'TOTP_CODE_INVALID',
        'The code does not match: enter the 6 digits the app shows now (its clock must be right).',
        { errors: [{ path: 'code', message: 'Does not match the secret.', code: 'totp_code_invalid' }] },
      )
    }
    const { codes, hashes } = mintRecoveryCodes()
    const { result } = await runMutation(
      store.db,
      operations.totp.confirm,
      { step, recoveryCodeHashes: hashes, keepSessionId: keep(c) },
      actorContext(c.var),
    )
    return c.json({ recoveryCodes: codes, sessionsEnded: result.sessionsEnded }, 200)
  })

  app.openapi(remove, async (c) => {
    const body = c.req.valid('json' as never) as z.output<typeof FactorProofBodySchema>
    const { userId } = c.get('caller')
    const factor = await totpFactorOf(store.db, userId)
    if (!factor?.confirmed) throw new EngineError(404, 'NOT_FOUND', 'You have no authenticator app.')
    await proveItIsYou(store, box, userId, proofOf(body))
    const { result } = await runMutation(
      store.db,
      operations.totp.remove,
      { keepSessionId: keep(c) },
      actorContext(c.var),
    )
    return c.json(result, 200)
  })

  app.openapi(regenerate, async (c) => {
    const body = c.req.valid('json' as never) as z.output<typeof FactorProofBodySchema>
    const { userId } = c.get('caller')
    const factor = await totpFactorOf(store.db, userId)
    if (!factor?.confirmed) throw new EngineError(404, 'NOT_FOUND', 'You have no authenticator app.')
    await proveItIsYou(store, box, userId, proofOf(body))
    const { codes, hashes } = mintRecoveryCodes()
    const { result } = await runMutation(
      store.db,
      operations.recoveryCodes.regenerate,
      { recoveryCodeHashes: hashes, keepSessionId: keep(c) },
      actorContext(c.var),
    )
    return c.json({ recoveryCodes: codes, sessionsEnded: result.sessionsEnded }, 200)
  })
  return app
}

function proofOf(body: z.output<typeof FactorProofBodySchema>) {
  if ('password' in body) return { password: body.password }
  if ('code' in body) return { totpCode: body.code }
  return { recoveryCode: body.recoveryCode }
}
