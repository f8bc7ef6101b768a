import type { AliasMatch, PayeeAliasRow, PayeeMergeRow } from './tables.ts'

/** An alias as the API shows it. */
export interface PayeeAlias {
  id: string
  payeeId: string
  name: string
  normalizedName: string
  /** `exact` (the spelling), `startsWith`, `contains` or `regex`. */
  match: AliasMatch
  createdAt: string
  updatedAt: string
}

/** A merge as the API shows it: what moved, and whether it was undone. */
export interface PayeeMerge {
  id: string
  sourcePayeeId: string
  targetPayeeId: string
  transactionIds: string[]
  splitIds: string[]
  movedAliasIds: string[]
  droppedAliasIds: string[]
  createdAliasId: string | null
  createdAt: string
  unmergedAt: string | null
}

export function toPayeeAlias(row: PayeeAliasRow): PayeeAlias {
  return {
    id: row.id,
    payeeId: row.payee_id,
    name: row.name,
    normalizedName: row.normalized_name,
    match: row.match,
    createdAt: row.created_at.toISOString(),
    updatedAt: row.updated_at.toISOString(),
  }
}

export function toPayeeMerge(row: PayeeMergeRow): PayeeMerge {
  const moved = typeof row.moved === 'string' ? JSON.parse(row.moved) : row.moved
  return {
    id: row.id,
    sourcePayeeId: row.source_payee_id,
    targetPayeeId: row.target_payee_id,
    transactionIds: moved.transactions.map((t: { id: string }) => t.id),
    splitIds: moved.splits,
    movedAliasIds: moved.aliases.map((a: { id: string }) => a.id),
    droppedAliasIds: moved.droppedAliases.map((a: { id: string }) => a.id),
    createdAliasId: moved.createdAliasId,
    createdAt: row.created_at.toISOString(),
    unmergedAt: row.unmerged_at?.toISOString() ?? null,
  }
}

/** Escapes `%`, `_` and `\` for a LIKE pattern. */
export function likeEscape(text: string): string {
  return text.replace(/[\\%_]/g, (c) => `\\${c}`)
}
