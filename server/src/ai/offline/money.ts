/** Formats integer cents in a currency, exactly (no floats): `-$1,234.56`, `1 234,56 €` aside. */
export function formatCents(cents: string | bigint, currency: string): string {
  const value = BigInt(cents)
  const negative = value < 0n
  const abs = negative ? -value : value
  const whole = (abs / 100n).toString().replace(/\B(?=(\d{3})+(?!\d))/g, ',')
  const frac = (abs % 100n).toString().padStart(2, '0')
  let symbol = `${currency} `
  try {
    const part = new Intl.NumberFormat('en-US', { style: 'currency', currency })
      .formatToParts(0)
      .find((p) => p.type === 'currency')
    if (part) symbol = part.value.length === 1 ? part.value : `${part.value} `
  } catch {}
  return `${negative ? '-' : ''}${symbol}${whole}.${frac}`
}

/** The first amount in a text as cents ("50", "$12.50", "1,200"), or null. */
export function parseAmountCents(text: string): number | null {
  const m = /(?:^|[\s$€£])(\d{1,3}(?:,\d{3})+|\d+)(?:\.(\d{1,2}))?(?![\d-])/.exec(text)
  if (!m) return null
  const whole = Number(m[1]!.replace(/,/g, ''))
  const frac = m[2] ? Number(m[2].padEnd(2, '0')) : 0
  return whole * 100 + frac
}
