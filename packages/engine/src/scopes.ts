/** Every scope an API key can carry, exactly as the REST contract lists them. */
export const SCOPES = [
  'read:accounts',
  'write:accounts',
  'ai:chat',
  'ai:tools',
  'read:insights',
  'write:insights',
  'read:households',
  'write:households',
  'read:profile',
  'write:profile',
  'read:transactions',
  'write:transactions',
  'read:rules',
  'write:rules',
  'read:categories',
  'write:categories',
  'read:payees',
  'write:payees',
  'read:tags',
  'write:tags',
  'read:forecasting',
  'read:budgets',
  'write:budgets',
  'read:recurrences',
  'write:recurrences',
  'read:webhooks',
  'write:webhooks',
  'read:notifications',
  'write:notifications',
] as const

export type Scope = (typeof SCOPES)[number]

/** Household roles; owners may do everything members may, plus owner-only operations. */
export const ROLES = ['owner', 'member'] as const
export type Role = (typeof ROLES)[number]

export function isScope(value: string): value is Scope {
  return (SCOPES as readonly string[]).includes(value)
}
