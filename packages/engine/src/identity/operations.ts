import type { IdentityHooks } from './household-seeders.ts'
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
      update: updateHousehold,
    },
    members: {
      add: addMember,
      list: listMembers,
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
