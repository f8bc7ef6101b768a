import { describe, expect, it } from 'vitest'
import { isCommon, passwordProblem } from './password-rules.ts'

describe('passwordProblem', () => {
  it('names the length of a password under 12 characters, counting characters rather than bytes', () => {
    expect(passwordProblem('short one')).toBe('Use at least 12 characters; this one has 9.')
    expect(passwordProblem('ümläütéàçñõ')).toMatch(/this one has 11/)
    expect(passwordProblem('ümläütéàçñõø')).toBeNull()
  })

  it('refuses a common password however it is padded or repeated, and one or two characters repeated', () => {
    expect(passwordProblem('password1234')).toMatch(/common password/)
    expect(passwordProblem('2024!iloveyou!!')).toMatch(/common password/)
    expect(passwordProblem('letmeinletmein')).toMatch(/common password/)
    expect(passwordProblem('QWERTYUIOP123')).toMatch(/common password/)
    expect(passwordProblem('abababababab')).toMatch(/repeats one or two characters/)
  })

  it('accepts a few unrelated words', () => {
    expect(passwordProblem('plum tree under snow')).toBeNull()
    expect(isCommon('correct horse battery staple')).toBe(false)
  })
})
