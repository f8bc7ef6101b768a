import {
  addMember,
  createApiKey,
  createHousehold,
  createUser,
  replacePreferences,
  revokeApiKey,
  updateHousehold,
  updateProfile,
} from './mutators.ts'
import { getHousehold, getProfile, listApiKeys, listMembers } from './queries.ts'

/** The identity domain's operations by noun and verb; the registry names each after its path. */
export const identityOperations = {
  apiKeys: {
    create: createApiKey,
    list: listApiKeys,
    revoke: revokeApiKey,
  },
  households: {
    create: createHousehold,
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
