import type { ChatRequest, ToolOutcome } from '../provider.ts'
import { formatCents } from './money.ts'
import type { Mention, Named, NameKind } from './names.ts'
import { monthPeriod, type Period } from './periods.ts'
import type { Understanding } from './understand.ts'

/** Everything one answer needs: the request, what was understood, and the household's names. */
export interface AnswerKit {
  req: ChatRequest
  u: Understanding
  names: readonly Named[]
  money(cents: string | bigint): string
}

/** An answer, or a refusal to answer for a reason the member should hear. */
export class Decline extends Error {}

/** The first name of a kind the question mentions. */
export function mentioned(kit: AnswerKit, ...kinds: NameKind[]): Mention | undefined {
  return kit.u.mentions.find((m) => kinds.includes(m.item.kind))
}

/**
 * The question's period, or `fallback` when it names none. A question with words of time that
 * were not read as a period ("in the summer") is declined, never answered for another period.
 */
export function periodOf(kit: AnswerKit, fallback: Period = monthPeriod(kit.req.today, 0)): Period {
  const found = kit.u.periods[0]
  if (found) return found
  if (kit.u.timeUnread) throw new Decline('I could not tell which period you mean.')
  return fallback
}

/** "last month (2026-10-01 to 2026-10-31)". */
export const periodText = (p: Period) => `${p.label} (${p.fromDate} to ${p.toDate})`

/** The result of a tool, or a Decline saying why it could not run. */
export async function use<T>(kit: AnswerKit, tool: string, args: unknown): Promise<T> {
  const outcome: ToolOutcome = await kit.req.runTool(tool, args)
  if (outcome.ok) return outcome.result as T
  throw new Decline(
    outcome.error.code === 'UNKNOWN_TOOL'
      ? 'Your key or role does not allow that, so I cannot look it up or do it.'
      : `That did not work: ${outcome.error.message}`,
  )
}

/** `n` thing(s). */
export const plural = (n: number, word: string) => `${n} ${word}${n === 1 ? '' : 's'}`

/** Bullet lines. */
export const bullets = (lines: string[]) => lines.map((l) => `• ${l}`).join('\n')

export { formatCents }
