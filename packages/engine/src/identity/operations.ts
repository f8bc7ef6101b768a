import type { IdentityHooks } from './household-seeders.ts'
import {
  beginInvitationPasskey,
  createInvitation,
  listInvitations,
  redeemInvitation,
  revokeInvitation,
} from './invitations.ts'
import {
  leaveHousehold,
  listMemberKeys,
  listMyHouseholds,
  removeMember,
  revokeMemberKey,
  updateMember,
} from './membership.ts'
import {
  addMember,
  createApiKey,
  createUser,
  defineCreateHousehold,
  replacePreferences,
  revokeApiKey,
  updateHousehold,
  updateProfile,
} from './mutators.ts'
import { getHousehold, getProfile, listApiKeys, listMembers } from './queries.ts'

/**
 * The identity domain's operations by noun and verb; the registry names each after its path.
 * `hooks` carries what other domains plug in (household seeders), so identity imports none of them.
 */
export function identityOperations(hooks: IdentityHooks) {
  return {
    apiKeys: {
      create: createApiKey,
      list: listApiKeys,
      revoke: revokeApiKey,
    },
    households: {
      create: defineCreateHousehold(hooks),
      get: getHousehold,
      leave: leaveHousehold,
      listMine: listMyHouseholds,
      update: updateHousehold,
    },
    invitations: {
      create: createInvitation,
      list: listInvitations,
      passkeyOptions: beginInvitationPasskey,
      redeem: redeemInvitation,
      revoke: revokeInvitation,
    },
    members: {
      add: addMember,
      list: listMembers,
      listKeys: listMemberKeys,
      remove: removeMember,
      revokeKey: revokeMemberKey,
      update: updateMember,
    },
    profile: {
      get: getProfile,
      replacePreferences: replacePreferences,
      update: updateProfile,
    },
    users: {
      create: createUser,
    },
  }
}
