/** What an invitation can offer: the household's roles, and the viewer preset (a member who only reads). */
export const INVITE_ROLES = ['member', 'viewer', 'owner'] as const
export type InviteRole = (typeof INVITE_ROLES)[number]

/** Each role's name and what it lets a person do, in a household's words. */
export const ROLE_WORDS: Record<InviteRole, { name: string; allows: string }> = {
  owner: {
    name: 'Owner',
    allows: 'Sees and changes everything, and manages members, invitations and the household’s settings.',
  },
  member: {
    name: 'Member',
    allows:
      'Sees and changes accounts, transactions, the budget, rules and payees; only owners manage members and the household’s settings.',
  },
  viewer: {
    name: 'Viewer',
    allows: 'Sees accounts, transactions, the budget and reports, and changes none of the household’s money.',
  },
}

/**
 * Which of the words fit a member who joined: an owner is an owner; a member whose key may not
 * write transactions or budgets is a viewer (the viewer preset); any other member is a member.
 */
export function roleOf(role: 'owner' | 'member', scopes: readonly string[]): InviteRole {
  if (role === 'owner') return 'owner'
  return scopes.some((s) => s === 'write:transactions' || s === 'write:budgets') ? 'member' : 'viewer'
}
