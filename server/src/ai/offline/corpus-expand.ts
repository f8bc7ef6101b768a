import { CORPUS, type Intent } from './corpus.ts'
import { maskPeriods, TIME_WORDS } from './periods.ts'

/** A template may name a time of its own (chrono's too: "now", "tomorrow"); the rest skip the parse. */
const MAY_NAME_TIME = new RegExp(`${TIME_WORDS.source}|\\b(?:now|tomorrow|tonight|night)\\b`)

/** The tokens a question's names, periods and amounts are masked to before its intent is read. */
export const SLOT_TOKENS = {
  category: 'xcategoryx',
  payee: 'xpayeex',
  account: 'xaccountx',
  tag: 'xtagx',
  period: 'xperiodx',
  amount: 'xamountx',
} as const

/** One training example: a masked question and its intent. */
export interface Example {
  text: string
  intent: Intent
}

/** How many examples each intent gets at least. */
export const MIN_PER_INTENT = 320

const OPENERS = [
  'hey',
  'quick question',
  'can you tell me',
  'pls',
  'ok so',
  'i want to know',
  'hi',
  'tell me',
  'so',
  'yo',
  'um',
  'quick one',
  'could you check',
  'i need to know',
  'just wondering',
  'any idea',
]

/** Casual spellings people type, applied whole-word. */
const ABBREVIATIONS: [RegExp, string][] = [
  [/\byou\b/g, 'u'],
  [/\bare\b/g, 'r'],
  [/\bplease\b/g, 'pls'],
  [/\bwhat is\b/g, 'whats'],
  [/\bwhat was\b/g, 'whats'],
  [/\baverage\b/g, 'avg'],
  [/\btransactions\b/g, 'txns'],
  [/\bexpenses\b/g, 'exps'],
  [/\bmonth\b/g, 'mo'],
  [/\band\b/g, '&'],
  [/\bhow much\b/g, 'how much $'],
  [/\bdid we\b/g, 'did we even'],
  [/\bwe\b/g, 'i'],
  [/\bour\b/g, 'my'],
  [/\bspending\b/g, 'spend'],
  [/\bcategory\b/g, 'cat'],
  [/\bbudget\b/g, 'budgt'],
]

/** A small deterministic generator, so the corpus is the same on every machine. */
function random(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0
    return s / 2 ** 32
  }
}

function hash(text: string): number {
  let h = 2166136261
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 16777619)
  return h >>> 0
}

/** One typo in one longer word: a letter dropped, doubled or swapped with the next. */
export function typo(text: string, seed: number): string {
  const next = random(seed)
  const words = text.split(' ')
  const long = words.map((w, i) => [w, i] as const).filter(([w]) => w.length >= 5 && !/^x\w+x$/.test(w))
  if (long.length === 0) return text
  const [word, at] = long[Math.floor(next() * long.length)]!
  const i = 1 + Math.floor(next() * (word.length - 2))
  const kind = Math.floor(next() * 3)
  const changed =
    kind === 0
      ? word.slice(0, i) + word.slice(i + 1)
      : kind === 1
        ? word.slice(0, i) + word[i] + word.slice(i)
        : word.slice(0, i) + word[i + 1] + word[i] + word.slice(i + 2)
  words[at] = changed
  return words.join(' ')
}

function fills(template: string): string[] {
  let forms = [template]
  const expand = (slot: string, values: string[]) => {
    forms = forms.flatMap((f) => (f.includes(slot) ? values.map((v) => f.replace(slot, v)) : [f]))
  }
  expand('{target}', [SLOT_TOKENS.category, SLOT_TOKENS.payee, SLOT_TOKENS.tag, SLOT_TOKENS.account])
  for (const slot of ['{cat}', '{cat}']) expand(slot, [SLOT_TOKENS.category])
  expand('{payee}', [SLOT_TOKENS.payee])
  expand('{acct}', [SLOT_TOKENS.account])
  expand('{tag}', [SLOT_TOKENS.tag])
  expand('{amount}', [SLOT_TOKENS.amount])
  expand('{n}', ['5', '10'])
  expand('{period}', [SLOT_TOKENS.period, ''])
  expand('{period2}', [SLOT_TOKENS.period])
  // A template's own periods ("this month", "tomorrow") are masked as a question's are; so is the
  // word before a slot's period ("in {period}").
  return forms.map((f) =>
    (MAY_NAME_TIME.test(f) ? maskPeriods(f, '2026-06-15', SLOT_TOKENS.period).masked : f)
      .replace(/\b(?:in|for|during|over|of|from|within|across|on|at)\s+(?:the\s+)?(?=xperiodx)/g, '')
      .replace(/\s+/g, ' ')
      .trim(),
  )
}

/**
 * The corpus as the classifier learns it: each template with its slots masked, and each form
 * again with an opener, with one typo, and with casual spellings. Deterministic.
 */
export function expandCorpus(): Example[] {
  const out: Example[] = []
  const seen = new Set<string>()
  const add = (text: string, intent: Intent) => {
    const t = text.replace(/\s+/g, ' ').trim()
    if (t && !seen.has(`${intent}\u0000${t}`)) {
      seen.add(`${intent}\u0000${t}`)
      out.push({ text: t, intent })
    }
  }
  for (const [intent, templates] of Object.entries(CORPUS) as [Intent, readonly string[]][]) {
    const forms = templates.flatMap(fills)
    const before = out.length
    // Rounds of casual forms until the intent has its several hundred examples.
    for (let round = 0; round < 12 && (round < 1 || out.length - before < MIN_PER_INTENT); round++) {
      for (const form of forms) {
        const h = hash(form) + round * 7919
        let casual = form
        for (const [pattern, spelling] of ABBREVIATIONS) casual = casual.replace(pattern, spelling)
        add(round === 0 ? form : `${OPENERS[h % OPENERS.length]} ${form}`, intent)
        add(typo(form, h), intent)
        add(round === 0 ? casual : `${OPENERS[(h >>> 3) % OPENERS.length]} ${typo(casual, h + 1)}`, intent)
      }
    }
  }
  return out
}
