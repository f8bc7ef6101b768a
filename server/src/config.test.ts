import { describe, expect, it } from 'vitest'
import { loadConfig } from './config.ts'

describe('loadConfig', () => {
  it('keeps 30 days of change log unless HEARTH_SYNC_LOG_WINDOW_DAYS says otherwise', () => {
    expect(loadConfig({}).syncLogWindowDays).toBe(30)
    expect(loadConfig({ HEARTH_SYNC_LOG_WINDOW_DAYS: '7' }).syncLogWindowDays).toBe(7)
    expect(loadConfig({ HEARTH_SYNC_LOG_WINDOW_DAYS: '0.5' }).syncLogWindowDays).toBe(0.5)
  })

  it('refuses a change-log window that is not a positive number, naming the variable', () => {
    for (const value of ['0', '-3', 'thirty']) {
      expect(() => loadConfig({ HEARTH_SYNC_LOG_WINDOW_DAYS: value })).toThrow(
        `HEARTH_SYNC_LOG_WINDOW_DAYS must be a positive number of days, got "${value}".`,
      )
    }
  })

  it('allows any origin unless HEARTH_CORS_ORIGINS lists them, and refuses what is not an origin', () => {
    expect(loadConfig({}).corsOrigins).toBe('*')
    expect(loadConfig({ HEARTH_CORS_ORIGINS: '*' }).corsOrigins).toBe('*')
    expect(
      loadConfig({ HEARTH_CORS_ORIGINS: 'https://app.example.com, http://localhost:5173' }).corsOrigins,
    ).toEqual(['https://app.example.com', 'http://localhost:5173'])
    for (const value of ['app.example.com', 'https://app.example.com/', 'https://a.example/path', ',']) {
      expect(() => loadConfig({ HEARTH_CORS_ORIGINS: value })).toThrow('HEARTH_CORS_ORIGINS must be')
    }
  })

  it('syncs the embedded store unless HEARTH_DURABILITY is off, and refuses any other value', () => {
    expect(loadConfig({}).durability).toBe(true)
    expect(loadConfig({ HEARTH_DURABILITY: 'on' }).durability).toBe(true)
    expect(loadConfig({ HEARTH_DURABILITY: 'off' }).durability).toBe(false)
    expect(() => loadConfig({ HEARTH_DURABILITY: 'false' })).toThrow(
      'HEARTH_DURABILITY must be on or off, got "false".',
    )
  })

  it('bounds password checks per address and per account, from HEARTH_PASSWORD_CHECKS_*', () => {
    expect(loadConfig({}).passwordChecks).toEqual({ perAddress: 1, waitingPerAddress: 8, perAccount: 2 })
    expect(
      loadConfig({
        HEARTH_PASSWORD_CHECKS_PER_ADDRESS: '2',
        HEARTH_PASSWORD_CHECKS_WAITING_PER_ADDRESS: '20',
        HEARTH_PASSWORD_CHECKS_PER_ACCOUNT: '4',
      }).passwordChecks,
    ).toEqual({ perAddress: 2, waitingPerAddress: 20, perAccount: 4 })
    for (const value of ['0', '-1', '1.5', 'many']) {
      expect(() => loadConfig({ HEARTH_PASSWORD_CHECKS_WAITING_PER_ADDRESS: value })).toThrow(
        `HEARTH_PASSWORD_CHECKS_WAITING_PER_ADDRESS must be a positive integer, got "${value}".`,
      )
    }
  })
})
