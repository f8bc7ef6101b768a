import { normalizePayeeName } from '../catalog/model.ts'

/**
 * Card-processor and point-of-sale prefixes banks put before the merchant ("SQ *BLUE BOTTLE",
 * "TST* JOES DINER", "PAYPAL *EBAY"): dropped when a merchant follows.
 */
const PROCESSOR_PREFIXES = new Set([
  'sq',
  'tst',
  'paypal',
  'pp',
  'sp',
  'py',
  'iz',
  'izettle',
  'zettle',
  'sumup',
  'pos',
  'checkcard',
  'ckcd',
])

/** Words that say what kind of business it is, not which one ("Starbucks Coffee", "Amazon.com"). */
const GENERIC_WORDS = new Set([
  'the',
  'inc',
  'llc',
  'ltd',
  'gmbh',
  'co',
  'corp',
  'corporation',
  'company',
  'com',
  'www',
  'coffee',
  'cafe',
  'store',
  'stores',
  'shop',
  'restaurant',
  'supermarket',
  'online',
  'intl',
  'international',
])

/** Two-letter US state, territory and province-like codes banks append after the city. */
const STATE_CODES = new Set(
  (
    'al ak az ar ca co ct de dc fl ga hi id il in ia ks ky la me md ma mi mn ms mo mt ne nv nh nj ' +
    'nm ny nc nd oh ok or pa ri sc sd tn tx ut vt va wa wv wi wy pr gu vi'
  ).split(' '),
)
/** Country codes a bank may add last ("AMZN Mktp US"). */
const COUNTRY_CODES = new Set(['us', 'usa', 'uk', 'gb'])
/** First words of two-word city names ("SAN FRANCISCO CA"), dropped with the city. */
const CITY_PREFIXES = new Set([
  'san',
  'los',
  'las',
  'new',
  'st',
  'saint',
  'santa',
  'fort',
  'ft',
  'el',
  'port',
])

/**
 * The words of a payee name that name the merchant, as bank text spells it: normalized
 * (`normalizePayeeName`: case, accents, apostrophes, punctuation), then without a processor
 * prefix (`SQ *`, `TST*`, `PAYPAL *`), store and terminal numbers (any later word holding a
 * digit: `#1234`, `2K4`), generic business words (`coffee`, `inc`, `com`) and a trailing
 * country code, city and state code (`SEATTLE WA`). When nothing would be left, the normalized
 * words stay as they were. Pure and locale-free, so every replica compares the same words.
 */
export function merchantWords(name: string): string[] {
  const all = normalizePayeeName(name)
    .split(' ')
    .filter((w) => w.length > 0)
  let words = [...all]
  if (words.length > 1 && PROCESSOR_PREFIXES.has(words[0]!)) words = words.slice(1)
  words = words.filter((w, i) => i === 0 || !/\d/.test(w))
  words = words.filter((w, i) => i === 0 || !GENERIC_WORDS.has(w))
  if (words.length > 1 && COUNTRY_CODES.has(words.at(-1)!)) words.pop()
  if (words.length > 1 && STATE_CODES.has(words.at(-1)!)) {
    words.pop()
    // The city before the state, and the first word of a two-word city.
    if (words.length > 1) words.pop()
    if (words.length > 1 && CITY_PREFIXES.has(words.at(-1)!)) words.pop()
  }
  if (words.length > 1 && GENERIC_WORDS.has(words[0]!)) words = words.slice(1)
  return words.length > 0 ? words : all
}
