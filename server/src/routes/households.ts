import {
  ApiKeyListSchema,
  CreatedInvitationSchema,
  CreateInvitationBodySchema,
  HouseholdSchema,
  InvitationListSchema,
  MemberListSchema,
  MembershipSchema,
  MyHouseholdListSchema,
} from '@hearth/contracts'
import { newUlid, operations } from '@hearth/engine'
import { mintInvitationCode } from '../auth/api-key-token.ts'
import { operationRoute, unknownFields } from '../http/operation-route.ts'

const tag = 'Households'
const members = '/households/{householdId}/members'
const invitations = '/households/{householdId}/invitations'

/** Household routes: households you belong to, their settings, members and invitations. */
export const householdRoutes = [
  operationRoute(operations.households.listMine, {
    method: 'get',
    path: '/households',
    status: 200,
    tag,
    response: MyHouseholdListSchema,
    responseDescription: 'Your households, oldest membership first.',
    present: (items) => ({ items }),
  }),
  operationRoute(operations.households.create, {
    method: 'post',
    path: '/households',
    status: 201,
    tag,
    summary: 'Create a household',
    createsHousehold: true,
    clientIds: ['id'],
    response: HouseholdSchema,
    responseDescription: 'The new household; you are its owner.',
    notes:
      'Defaults: `baseCurrency` USD, `timeZone` UTC, `dataLanguage` en. It becomes your default household if you have none.',
    errors: { 400: ['HOUSEHOLD_MISMATCH'] },
  }),
  operationRoute(operations.households.get, {
    method: 'get',
    path: '/households/{householdId}',
    status: 200,
    tag,
    response: HouseholdSchema,
    responseDescription: 'The household.',
  }),
  operationRoute(operations.households.update, {
    method: 'patch',
    path: '/households/{householdId}',
    status: 200,
    tag,
    response: HouseholdSchema,
    responseDescription: 'The updated household.',
  }),
  operationRoute(operations.members.list, {
    method: 'get',
    path: members,
    status: 200,
    tag,
    response: MemberListSchema,
    responseDescription: 'Owners first, then by join date.',
    present: (items) => ({ items }),
  }),
  // Before `{userId}`, which would otherwise take `me`.
  operationRoute(operations.households.leave, {
    method: 'delete',
    path: `${members}/me`,
    status: 204,
    tag,
    notes:
      'Your keys keep working for your other households. The last owner cannot leave (409 `LAST_OWNER`).',
    errors: { 409: ['LAST_OWNER'] },
  }),
  operationRoute(operations.members.update, {
    method: 'patch',
    path: `${members}/{userId}`,
    status: 200,
    tag,
    params: { userId: 'userId' },
    response: MembershipSchema,
    responseDescription: 'The membership with its new role.',
    notes: 'The last owner cannot be demoted (409 `LAST_OWNER`).',
    errors: { 409: ['LAST_OWNER'] },
  }),
  operationRoute(operations.members.remove, {
    method: 'delete',
    path: `${members}/{userId}`,
    status: 204,
    tag,
    params: { userId: 'userId' },
    notes:
      'Their keys lose this household at once and their devices stop receiving it. The last owner cannot be removed (409 `LAST_OWNER`).',
    errors: { 409: ['LAST_OWNER'] },
  }),
  operationRoute(operations.members.listKeys, {
    method: 'get',
    path: `${members}/{userId}/api-keys`,
    status: 200,
    tag,
    params: { userId: 'userId' },
    response: ApiKeyListSchema,
    responseDescription: "The member's keys, newest first.",
    present: (items) => ({ items }),
  }),
  operationRoute(operations.members.revokeKey, {
    method: 'delete',
    path: `${members}/{userId}/api-keys/{keyId}`,
    status: 204,
    tag,
    params: { userId: 'userId', keyId: 'id' },
    notes:
      'A key acts for its user in every household they belong to, so it stops working everywhere; revoking again is harmless.',
  }),
  operationRoute(operations.invitations.list, {
    method: 'get',
    path: invitations,
    status: 200,
    tag,
    response: InvitationListSchema,
    responseDescription: 'Newest first, with `status` pending, redeemed, revoked or expired.',
    present: (items) => ({ items }),
  }),
  operationRoute(operations.invitations.create, {
    method: 'post',
    path: invitations,
    status: 201,
    tag,
    input: CreateInvitationBodySchema,
    response: CreatedInvitationSchema,
    responseDescription: 'The invitation, with its code.',
    notes:
      'The code is in `code`, shown once; the invitee redeems it at `POST /invitations/redeem`. Single use. ' +
      'The scopes must be a subset of yours (403 `SCOPE_NOT_GRANTABLE`). Without `scopes`, `role` is a preset: ' +
      '`owner` and `member` get every scope you hold, `viewer` (a member whose key only reads) the read scopes you hold.',
    errors: { 403: ['SCOPE_NOT_GRANTABLE'] },
    secretField: 'code',
    prepare({ query, body }) {
      // The code is minted here; only its hash reaches the operation and the database.
      const minted = mintInvitationCode()
      const made = { id: newUlid(), codeHash: minted.hash, prefix: minted.prefix }
      const given = { ...query, ...(body as Record<string, unknown>) }
      const clash = Object.keys(given).filter((k) => Object.hasOwn(made, k))
      if (clash.length > 0) throw unknownFields(clash, 'Unknown field: the server sets it.')
      return { args: { ...given, ...made }, present: (r) => ({ ...(r as object), code: minted.token }) }
    },
  }),
  operationRoute(operations.invitations.revoke, {
    method: 'delete',
    path: `${invitations}/{id}`,
    status: 204,
    tag,
    notes: 'Revoking again is harmless; a redeemed invitation answers 409 `INVITATION_USED`.',
    errors: { 409: ['INVITATION_USED'] },
  }),
]
