import { type Role, SCOPES, type Scope } from '../scopes.ts'

/**
 * What an invitation may offer: a household role (`owner`, `member`), or `viewer`, a member whose
 * key reads everything and changes nothing of the household's money.
 */
export const INVITATION_ROLES = ['owner', 'member', 'viewer'] as const
export type InvitationRole = (typeof INVITATION_ROLES)[number]

/** Scopes about the viewer themselves (their profile, their notifications), not the household's money. */
const OWN_SCOPES: readonly Scope[] = ['write:profile', 'write:notifications']

/**
 * The scopes each preset offers: an owner and a member every scope (what a member may not do is
 * the role's, not the key's: owner-only operations refuse members whatever their scopes), a viewer
 * every read scope and their own profile and notifications.
 */
export const PRESET_SCOPES: Record<InvitationRole, readonly Scope[]> = {
  owner: SCOPES,
  member: SCOPES,
  viewer: SCOPES.filter((s) => s.startsWith('read:') || OWN_SCOPES.includes(s)),
}

/**
 * The membership role and key scopes an invitation grants. Scopes sent are granted as they are
 * (the caller checks they hold them); without scopes the role's preset is granted, less what the
 * inviter does not hold, since no one grants a scope they lack. A viewer joins as a member.
 */
export function invitationGrant(
  args: { role: InvitationRole; scopes?: readonly Scope[] },
  held: readonly Scope[],
): { role: Role; scopes: Scope[] } {
  const role: Role = args.role === 'viewer' ? 'member' : args.role
  if (args.scopes) return { role, scopes: [...args.scopes] }
  return { role, scopes: PRESET_SCOPES[args.role].filter((s) => held.includes(s)) }
}
