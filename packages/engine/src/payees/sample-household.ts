import type { LabelledSubject } from './category-model.ts'

/** A deterministic pseudo-random stream (mulberry32), so a sample household is the same every run. */
function random(seed: number): () => number {
  let a = seed >>> 0
  return () => {
    a = (a + 0x6d2b79f5) >>> 0
    let t = a
    t = Math.imul(t ^ (t >>> 15), t | 1)
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61)
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

interface CategorySpec {
  id: string
  payees: string[]
  memos: string[]
  /** Typical amount in cents (negative: spending). */
  cents: number
  account: string
}

/** A household's spending as a bank export shows it: merchants, some shared between categories. */
const CATEGORIES: CategorySpec[] = [
  {
    id: 'groceries',
    payees: ['Rewe', 'Lidl', 'Aldi Sued', 'Edeka', 'Amazon'],
    memos: ['weekly shop', 'groceries', 'food', ''],
    cents: -6500,
    account: 'checking',
  },
  {
    id: 'dining',
    payees: ['Pizza Express', 'Sushi Bar', 'Cafe Central', 'Burger King'],
    memos: ['dinner', 'lunch', 'coffee', ''],
    cents: -2800,
    account: 'card',
  },
  {
    id: 'rent',
    payees: ['Hausverwaltung Meyer'],
    memos: ['rent', 'miete', 'monthly rent'],
    cents: -120000,
    account: 'checking',
  },
  {
    id: 'utilities',
    payees: ['Stadtwerke', 'Vattenfall', 'Telekom'],
    memos: ['electricity', 'internet', 'gas bill', ''],
    cents: -9000,
    account: 'checking',
  },
  {
    id: 'transport',
    payees: ['DB Bahn', 'Shell', 'Aral', 'BVG', 'Uber'],
    memos: ['ticket', 'fuel', 'train', ''],
    cents: -4500,
    account: 'card',
  },
  {
    id: 'shopping',
    payees: ['Amazon', 'Zalando', 'Ikea', 'Media Markt'],
    memos: ['order', 'clothes', 'furniture', ''],
    cents: -7500,
    account: 'card',
  },
  {
    id: 'subscriptions',
    payees: ['Netflix', 'Spotify', 'Apple', 'Disney Plus'],
    memos: ['subscription', 'monthly', ''],
    cents: -1299,
    account: 'card',
  },
  {
    id: 'health',
    payees: ['Apotheke', 'Dr Schmidt', 'Fitness First'],
    memos: ['pharmacy', 'doctor', 'gym', ''],
    cents: -3500,
    account: 'checking',
  },
  { id: 'salary', payees: ['Acme GmbH'], memos: ['salary', 'gehalt'], cents: 350000, account: 'checking' },
  {
    id: 'insurance',
    payees: ['Allianz', 'HUK Coburg'],
    memos: ['insurance', 'premium', ''],
    cents: -8900,
    account: 'checking',
  },
  {
    id: 'gifts',
    payees: ['Amazon', 'Thalia', 'Blumen Koch'],
    memos: ['birthday', 'gift', 'present', ''],
    cents: -3000,
    account: 'card',
  },
  {
    id: 'travel',
    payees: ['Lufthansa', 'Booking.com', 'Airbnb', 'DB Bahn'],
    memos: ['flight', 'hotel', 'holiday', ''],
    cents: -25000,
    account: 'card',
  },
]

/**
 * A generated household of `count` categorized rows, oldest first. Merchants recur, a few
 * (Amazon, DB Bahn) serve several categories, amounts scatter around each category's typical
 * one, and about one row in eight comes from a merchant seen nowhere else.
 */
export function sampleHousehold(count = 3000, seed = 12): LabelledSubject[] {
  const next = random(seed)
  const pick = <T>(items: readonly T[]): T => items[Math.floor(next() * items.length)]!
  const weights = [20, 10, 2, 4, 8, 6, 5, 3, 2, 2, 2, 2]
  const total = weights.reduce((a, b) => a + b, 0)
  const rows: LabelledSubject[] = []
  for (let i = 0; i < count; i++) {
    let r = next() * total
    let k = 0
    while (r >= weights[k]!) r -= weights[k++]!
    const spec = CATEGORIES[k]!
    const unseen = next() < 0.125
    const name = unseen ? `${pick(['Shop', 'Store', 'Kiosk', 'Markt', 'Service'])} ${i}` : pick(spec.payees)
    const scatter = 0.5 + next()
    rows.push({
      categoryId: spec.id,
      payeeId: `payee:${name}`,
      payeeName: name.toLowerCase(),
      memo: pick(spec.memos) || null,
      amountCents: Math.round(spec.cents * scatter),
      accountId: next() < 0.85 ? spec.account : spec.account === 'card' ? 'checking' : 'card',
    })
  }
  return rows
}
