import { sha256 } from '@noble/hashes/sha2.js'
import { utf8ToBytes } from '@noble/hashes/utils.js'
import { type CategoryGoal, toCategoryGoal } from './category-goal.ts'
import type { CategoryGroupRow, CategoryRow, FlagRow, PayeeRow, TagRow } from './tables.ts'

/** A category as the API shows it. */
export interface Category {
  id: string
  groupId: string
  name: string
  position: number
  hidden: boolean
  /** The budget goal the month snapshot measures the category against; null for none. */
  goal: CategoryGoal | null
  /** Whether cash overspending carries into next month in the category (docs/budgets.md). */
  carryOverspending: boolean
  /** Only in a list asked to include deleted categories: when it was deleted, null while live. */
  deletedAt?: string | null
  createdAt: string
  updatedAt: string
}

/** A category group as the API shows it; lists and single reads nest its live categories. */
export interface CategoryGroup {
  id: string
  name: string
  position: number
  hidden: boolean
  isIncome: boolean
  createdAt: string
  updatedAt: string
  categories?: Category[]
}

/** A payee as the API shows it. */
export interface Payee {
  id: string
  name: string
  normalizedName: string
  categoryId: string | null
  createdAt: string
  updatedAt: string
  /** Only in a list asked to include deleted payees: when it was deleted, null while live. */
  deletedAt?: string | null
}

/** The Tag object the tag endpoints return. */
export interface Tag {
  id: string
  name: string
  color: string | null
  createdAt: string
  updatedAt: string
}

/** A flag as the API shows it. */
export interface Flag {
  id: string
  name: string
  color: string
  position: number
  createdAt: string
  updatedAt: string
}

export function toCategory(row: CategoryRow): Category {
  return {
    id: row.id,
    groupId: row.group_id,
    name: row.name,
    position: row.position,
    hidden: row.hidden,
    goal: toCategoryGoal(row.goal),
    carryOverspending: row.carry_overspending,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

export function toCategoryGroup(row: CategoryGroupRow, categories?: Category[]): CategoryGroup {
  return {
    id: row.id,
    name: row.name,
    position: row.position,
    hidden: row.hidden,
    isIncome: row.is_income,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
    ...(categories && { categories }),
  }
}

export function toPayee(row: PayeeRow): Payee {
  return {
    id: row.id,
    name: row.name,
    normalizedName: row.normalized_name,
    categoryId: row.category_id,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

export function toTag(row: TagRow): Tag {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

export function toFlag(row: FlagRow): Flag {
  return {
    id: row.id,
    name: row.name,
    color: row.color,
    position: row.position,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

/** Letters that Unicode decomposition leaves whole but a person reads as plain Latin. */
const LETTER_FOLDS: Record<string, string> = {
  ß: 'ss',
  æ: 'ae',
  œ: 'oe',
  ø: 'o',
  ł: 'l',
  đ: 'd',
  ð: 'd',
  þ: 'th',
  ı: 'i',
}

/**
 * The form payees are matched on: lower case, accents and compatibility forms folded (NFKD,
 * combining marks dropped), apostrophes dropped so "McDonald's" meets "McDonalds", every other
 * run of punctuation or symbols turned into one space, whitespace collapsed and trimmed.
 * A name made only of punctuation keeps its lower-cased, whitespace-collapsed self, so it
 * never folds to the empty string and matches every other such name.
 */
export function normalizePayeeName(name: string): string {
  const folded = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase()
    .replace(/[ßæœøłđðþı]/g, (c) => LETTER_FOLDS[c] ?? c)
    .replace(/['\u2018\u2019\u02bc`´]/g, '')
    .replace(/[^\p{L}\p{N}]+/gu, ' ')
    .trim()
  if (folded.length > 0) return folded
  return name.normalize('NFKC').toLowerCase().replace(/\s+/g, ' ').trim()
}

const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ'

/**
 * A ULID derived from another and a salt: the seed's time part, and 80 bits of the SHA-256 of
 * seed and salt. The same inputs always give the same id, which keeps mutators that seed rows
 * (default flags, split parts, payees named on import) deterministic on every device that
 * replays them, and ids derived from different inputs collide no more often than random ULIDs.
 */
export function deriveUlid(seed: string, salt: string): string {
  const digest = sha256(utf8ToBytes(`${seed}\u0000${salt}`))
  let out = seed.slice(0, 10)
  // 16 characters of 5 bits each, read from the first 10 bytes.
  let bits = 0
  let value = 0
  for (let i = 0; out.length < 26; ) {
    if (bits < 5) {
      value = ((value << 8) | digest[i++]!) & 0xffff
      bits += 8
    }
    bits -= 5
    out += CROCKFORD[(value >>> bits) & 31]
  }
  return out
}

/** The flags every new household starts with, in display order. */
export const DEFAULT_FLAGS: readonly { key: string; name: string; color: string }[] = [
  { key: 'red', name: 'Red', color: '#e5484d' },
  { key: 'orange', name: 'Orange', color: '#f76b15' },
  { key: 'yellow', name: 'Yellow', color: '#ffc53d' },
  { key: 'green', name: 'Green', color: '#30a46c' },
  { key: 'blue', name: 'Blue', color: '#0090ff' },
  { key: 'purple', name: 'Purple', color: '#8e4ec6' },
]
