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
})
