import { describe, expect, it } from 'vitest'
import { SCOPES, type Scope } from '../scopes.ts'
import { invitationGrant, PRESET_SCOPES } from './invitation-presets.ts'

describe('invitationGrant', () => {
  it('gives a partner invited as a member every scope the owner holds, so every screen works', () => {
    expect(invitationGrant({ role: 'member' }, SCOPES)).toEqual({ role: 'member', scopes: [...SCOPES] })
  })

  it('makes a viewer a member whose key reads and writes nothing of the household’s money', () => {
    const grant = invitationGrant({ role: 'viewer' }, SCOPES)
    expect(grant.role).toBe('member')
    expect(grant.scopes).toContain('read:transactions')
    expect(grant.scopes).toContain('read:budgets')
    expect(grant.scopes.filter((s) => s.startsWith('write:'))).toEqual([
      'write:profile',
      'write:notifications',
    ])
    expect(grant.scopes).not.toContain('ai:tools')
  })

  it('leaves out of a preset what the inviter does not hold', () => {
    const held: Scope[] = ['read:households', 'write:households', 'read:budgets', 'write:budgets']
    expect(invitationGrant({ role: 'member' }, held).scopes).toEqual(held)
    expect(invitationGrant({ role: 'viewer' }, held).scopes).toEqual(['read:households', 'read:budgets'])
  })

  it('grants scopes sent as they are, with the role named', () => {
    expect(invitationGrant({ role: 'owner', scopes: ['read:budgets'] }, SCOPES)).toEqual({
      role: 'owner',
      scopes: ['read:budgets'],
    })
  })

  it('lists every read scope in the viewer preset', () => {
    const reads = SCOPES.filter((s) => s.startsWith('read:'))
    expect(reads.every((s) => PRESET_SCOPES.viewer.includes(s))).toBe(true)
  })
})
