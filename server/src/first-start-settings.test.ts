import { describe, expect, it } from 'vitest'
import { firstStartSettings } from './first-start-settings.ts'

describe('first start settings', () => {
  it('takes what the environment names', () => {
    expect(firstStartSettings({ currency: 'CHF', timeZone: 'Europe/Zurich' }, {})).toEqual({
      currency: 'CHF',
      timeZone: 'Europe/Zurich',
      currencyFrom: 'HEARTH_INIT_CURRENCY',
      timeZoneFrom: 'HEARTH_INIT_TIMEZONE',
    })
  })

  it("reads the currency from the machine's locale, LC_ALL before LANG", () => {
    expect(firstStartSettings({}, { LANG: 'de_DE.UTF-8' })).toMatchObject({
      currency: 'EUR',
      currencyFrom: "the machine's locale (LANG=de_DE.UTF-8)",
    })
    expect(firstStartSettings({}, { LC_ALL: 'en_GB.UTF-8', LANG: 'de_DE.UTF-8' }).currency).toBe('GBP')
    expect(firstStartSettings({}, { LANG: 'ja_JP.UTF-8' }).currency).toBe('JPY')
  })

  it('falls back to USD when the locale names no region it knows, and says so', () => {
    const settings = firstStartSettings({}, { LC_ALL: 'C', LANG: 'C.UTF-8' })
    // The runtime locale decides then; whatever it is, the source is named.
    expect(settings.currencyFrom).toMatch(/runtime locale|default/)
    expect(firstStartSettings({}, { LANG: 'xx_ZZ' })).toMatchObject({
      currency: 'USD',
      currencyFrom: 'default',
    })
  })

  it("uses the machine's time zone when none is given", () => {
    const settings = firstStartSettings({}, {})
    expect(settings.timeZone).toBe(Intl.DateTimeFormat().resolvedOptions().timeZone)
    expect(settings.timeZoneFrom).toBe("the machine's time zone")
  })
})
