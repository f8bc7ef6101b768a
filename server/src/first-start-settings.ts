/** What the first household is settled with, and where each value came from, to print beside the key. */
export interface FirstStartSettings {
  currency: string
  timeZone: string
  /** `HEARTH_INIT_CURRENCY`, or the locale it was read from, or `default` when nothing said. */
  currencyFrom: string
  timeZoneFrom: string
}

/**
 * The currency of a region, for the regions a household is most likely in; any other falls back
 * to USD and says so. Eurozone members as of 2026, Bulgaria included.
 */
const REGION_CURRENCY: Record<string, string> = {
  AT: 'EUR',
  BE: 'EUR',
  BG: 'EUR',
  CY: 'EUR',
  DE: 'EUR',
  EE: 'EUR',
  ES: 'EUR',
  FI: 'EUR',
  FR: 'EUR',
  GR: 'EUR',
  HR: 'EUR',
  IE: 'EUR',
  IT: 'EUR',
  LT: 'EUR',
  LU: 'EUR',
  LV: 'EUR',
  MT: 'EUR',
  NL: 'EUR',
  PT: 'EUR',
  SI: 'EUR',
  SK: 'EUR',
  AD: 'EUR',
  MC: 'EUR',
  SM: 'EUR',
  VA: 'EUR',
  ME: 'EUR',
  XK: 'EUR',
  US: 'USD',
  PR: 'USD',
  EC: 'USD',
  SV: 'USD',
  PA: 'USD',
  GB: 'GBP',
  CH: 'CHF',
  LI: 'CHF',
  CA: 'CAD',
  AU: 'AUD',
  NZ: 'NZD',
  JP: 'JPY',
  CN: 'CNY',
  HK: 'HKD',
  TW: 'TWD',
  KR: 'KRW',
  IN: 'INR',
  SG: 'SGD',
  SE: 'SEK',
  NO: 'NOK',
  DK: 'DKK',
  IS: 'ISK',
  PL: 'PLN',
  CZ: 'CZK',
  HU: 'HUF',
  RO: 'RON',
  TR: 'TRY',
  UA: 'UAH',
  IL: 'ILS',
  AE: 'AED',
  SA: 'SAR',
  ZA: 'ZAR',
  NG: 'NGN',
  KE: 'KES',
  EG: 'EGP',
  BR: 'BRL',
  MX: 'MXN',
  AR: 'ARS',
  CL: 'CLP',
  CO: 'COP',
  PE: 'PEN',
  ID: 'IDR',
  MY: 'MYR',
  TH: 'THB',
  PH: 'PHP',
  VN: 'VND',
  PK: 'PKR',
  BD: 'BDT',
  RS: 'RSD',
  RU: 'RUB',
}

/** The locale the machine formats money in: `LC_ALL`, `LC_MONETARY`, `LANG`, else the runtime's. */
function machineLocale(env: NodeJS.ProcessEnv): { tag: string; from: string } {
  for (const name of ['LC_ALL', 'LC_MONETARY', 'LANG'] as const) {
    const value = env[name]
    // `de_DE.UTF-8@euro` → `de-DE`; `C` and `POSIX` name no region.
    const tag = value?.split(/[.@]/)[0]?.replace('_', '-')
    if (tag && tag !== 'C' && tag !== 'POSIX') return { tag, from: `${name}=${value}` }
  }
  return { tag: Intl.DateTimeFormat().resolvedOptions().locale, from: 'the runtime locale' }
}

function regionOf(tag: string): string | undefined {
  try {
    return new Intl.Locale(tag).maximize().region
  } catch {
    return undefined
  }
}

/**
 * Settles the first household from the environment, asking nothing: `HEARTH_INIT_CURRENCY` and
 * `HEARTH_INIT_TIMEZONE` when set (checked by `loadConfig`), else the machine's time zone and
 * the currency of its locale's region, else USD and UTC.
 */
export function firstStartSettings(
  init: { currency?: string; timeZone?: string },
  env: NodeJS.ProcessEnv = process.env,
): FirstStartSettings {
  let currency = init.currency
  let currencyFrom = 'HEARTH_INIT_CURRENCY'
  if (!currency) {
    const locale = machineLocale(env)
    const region = regionOf(locale.tag)
    currency = region ? REGION_CURRENCY[region] : undefined
    currencyFrom = currency ? `the machine's locale (${locale.from})` : 'default'
    currency ??= 'USD'
  }
  let timeZone = init.timeZone
  let timeZoneFrom = 'HEARTH_INIT_TIMEZONE'
  if (!timeZone) {
    const machine = Intl.DateTimeFormat().resolvedOptions().timeZone
    timeZone = machine || 'UTC'
    timeZoneFrom = machine ? "the machine's time zone" : 'default'
  }
  return { currency, timeZone, currencyFrom, timeZoneFrom }
}
