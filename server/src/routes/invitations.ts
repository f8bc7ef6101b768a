import { ProblemSchema, RedeemInvitationBodySchema, RedemptionSchema } from '@hearth/contracts'
import {
  EngineError,
  type HouseholdContext,
  invitationHousehold,
  newUlid,
  operations,
  runMutation,
  type Store,
} from '@hearth/engine'
import { createRoute, OpenAPIHono, z } from '@hono/zod-openapi'
import { hashApiKey, mintApiKey } from '../auth/api-key-token.ts'
import type { AppEnv } from '../http/env.ts'
import { jsonBody, jsonResponse } from '../http/route.ts'

const problemContent = { 'application/problem+json': { schema: ProblemSchema } }

const redeem = createRoute({
  method: 'post',
  path: '/invitations/redeem',
  operationId: 'invitations.redeem',
  tags: ['Households'],
  summary: 'Redeem an invitation',
  description:
    'Joins the household an owner invited you to. Without a key, a new user is made (send `name`); ' +
    'with a key, you join as its user. Either way the answer holds your first key for that household ' +
    '(`apiKey.key`, shown once) with the scopes the invitation names. A code works once.',
  security: [{}, { bearerAuth: [] }],
  request: { query: z.strictObject({}), body: jsonBody(RedeemInvitationBodySchema) },
  responses: {
    201: jsonResponse(RedemptionSchema, 'You are a member; your new key is in `apiKey.key`.'),
    400: { description: 'Invalid input: `VALIDATION_FAILED`, `MALFORMED_JSON`.', content: problemContent },
    401: {
      description: 'A key was sent and it is unknown or revoked: `UNAUTHENTICATED`.',
      content: problemContent,
    },
    404: { description: 'No invitation has this code: `NOT_FOUND`.', content: problemContent },
    409: {
      description:
        'You already belong to the household (`ALREADY_MEMBER`), or the email is taken (`EMAIL_TAKEN`).',
      content: problemContent,
    },
    410: {
      description:
        'The code was used (`INVITATION_USED`), revoked (`INVITATION_REVOKED`) or expired (`INVITATION_EXPIRED`).',
      content: problemContent,
    },
  },
})

/** Redeeming an invitation: the one route a caller may use with or without a key. */
export function invitationRoutes(store: Store) {
  const app = new OpenAPIHono<AppEnv>()
  app.openapi(redeem, async (c) => {
    // The route's schema validated the body (a 400 otherwise); its type is not inferred across packages' zod.
    const body = c.req.valid('json' as never) as z.output<typeof RedeemInvitationBodySchema>
    const caller = c.get('caller') as AppEnv['Variables']['caller'] | undefined
    const codeHash = hashApiKey(body.code)
    const householdId = await invitationHousehold(store.db, codeHash)
    if (!householdId)
      throw new EngineError(404, 'NOT_FOUND', 'No invitation has this code.', {
        extra: { resource: 'Invitation' },
      })
    const joining = caller
      ? null
      : { id: newUlid(), name: body.name, email: body.email, timeZone: body.timeZone }
    if (caller && (body.name !== undefined || body.email != null || body.timeZone != null)) {
      throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
        errors: ['name', 'email', 'timeZone']
          .filter((k) => body[k as keyof typeof body] != null)
          .map((k) => ({
            path: k,
            message: 'Unknown field: you join as the user of your key.',
            code: 'unknown_field',
          })),
      })
    }
    if (joining && joining.name === undefined) {
      throw new EngineError(400, 'VALIDATION_FAILED', 'The request has invalid fields.', {
        errors: [{ path: 'name', message: 'Required when you call without a key.', code: 'required' }],
      })
    }
    const minted = mintApiKey()
    // The redeemer acts in the household they are joining, with no role in it until the run ends.
    const ctx: HouseholdContext = {
      userId: caller?.userId ?? joining!.id,
      scopes: caller?.scopes ?? [],
      now: new Date(),
      householdId,
      role: 'member',
    }
    const { result } = await runMutation(
      store.db,
      operations.invitations.redeem,
      {
        codeHash,
        ...(joining && { newUser: joining }),
        key: {
          id: newUlid(),
          name: body.keyName ?? 'Invitation key',
          keyHash: minted.hash,
          prefix: minted.prefix,
        },
      },
      ctx,
    )
    return c.json({ ...result, apiKey: { ...result.apiKey, key: minted.token } }, 201)
  })
  return app
}
