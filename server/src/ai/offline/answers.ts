import type { ChatRequest, ToolOutcome } from '../provider.ts'
import { monthPeriod, type Period, parsePeriod } from './dates.ts'
import type { Intent } from './intents.ts'
import { formatCents, parseAmountCents } from './money.ts'
import { findNamed, type Named } from './names.ts'

/** What the offline assistant can do, said when it did not understand. */
export const EXAMPLES = [
  'How much did we spend on groceries last month?',
  'What did we pay Netflix this year?',
  'Spending by category since March',
  'What are our account balances? / What is our net worth?',
  'How is the budget this month? / How much is left in Dining Out?',
  'What changed since last month?',
  'What were the largest transactions this month?',
  'Move 50 from Dining Out to Groceries this month',
  'Categorize every Netflix transaction as Subscriptions',
  'Create a rule for Netflix as Subscriptions',
]

const help = () => `Here is what I can answer without a network:\n${EXAMPLES.map((e) => `• ${e}`).join('\n')}`

interface Catalog {
  categories: Named[]
  payees: Named[]
  tags: Named[]
}

/** The names a question may mention, read together (on PostgreSQL, on three connections at once). */
async function catalog(req: ChatRequest): Promise<Catalog> {
  const has = (op: string) => req.tools.some((t) => t.operation === op)
  const [categories, payees, tags] = await Promise.all([
    has('categories.list')
      ? req.read('categories.list', {}).then((r) => (r as { items: Named[] }).items)
      : [],
    has('payees.list') ? req.read('payees.list', {}).then((r) => (r as { items: Named[] }).items) : [],
    has('tags.list') ? req.read('tags.list', {}).then((r) => r as Named[]) : [],
  ])
  return { categories, payees, tags }
}

function refusedText(outcome: ToolOutcome): string {
  if (outcome.ok) return ''
  return outcome.error.code === 'UNKNOWN_TOOL'
    ? 'Your key or role does not allow that, so I cannot look it up or do it.'
    : `That did not work: ${outcome.error.message}`
}

/** Answers one intent with the engine's figures; never throws on a question it cannot answer. */
export async function answerIntent(intent: Intent, req: ChatRequest): Promise<string> {
  const text = req.message
  const money = (c: string | bigint) => formatCents(c, req.currency)
  const period = parsePeriod(text, req.today)
  switch (intent) {
    case 'help':
      return help()
    case 'upcoming':
      return 'Upcoming bills and recurring payments are not available yet: recurrences are still being built. Until then I can tell you what you spent, your balances and your budget.'
    case 'spending':
    case 'income': {
      const p = period ?? monthPeriod(req.today, 0)
      const names = await catalog(req)
      const lower = text.toLowerCase()
      const byCategory = /\bby categor|\bper categor|\bcategories\b|\bbreakdown\b/.test(lower)
      const byPayee = /\bby payee|\bper payee|\bpayees\b|\bwho\b/.test(lower)
      const category = findNamed(text, names.categories)
      const payee = findNamed(text, names.payees)
      const tag = findNamed(text, names.tags)
      const target = [
        category && { kind: 'category', ...category },
        payee && { kind: 'payee', ...payee },
        tag && { kind: 'tag', ...tag },
      ]
        .filter((x) => !!x)
        .sort((a, b) => b!.score - a!.score)[0]
      const args: Record<string, unknown> = {
        fromDate: p.fromDate,
        toDate: p.toDate,
        groupBy: byPayee ? 'payee' : 'category',
      }
      if (target && !byCategory && !byPayee) {
        args[`${target.kind}Id`] = target.item.id
        args.groupBy = 'none'
      }
      const outcome = await req.runTool('reports_spending', args)
      if (!outcome.ok) return refusedText(outcome)
      const r = outcome.result as {
        spentCents: string
        incomeCents: string
        count: number
        groups: { name: string; spentCents: string; count: number }[]
      }
      if (intent === 'income')
        return `Money in ${p.label} (${p.fromDate} to ${p.toDate}): ${money(r.incomeCents)} across ${r.count} rows.`
      if (target && args.groupBy === 'none') {
        const spent = BigInt(r.spentCents) - BigInt(r.incomeCents)
        return `You spent ${money(spent)} on ${target.item.name} ${p.label} (${p.fromDate} to ${p.toDate}), in ${r.count} transaction${r.count === 1 ? '' : 's'}.`
      }
      const top = r.groups.slice(0, 8).map((g) => `• ${g.name}: ${money(g.spentCents)}`)
      return `You spent ${money(r.spentCents)} ${p.label} (${p.fromDate} to ${p.toDate})${top.length ? `. By ${args.groupBy}:\n${top.join('\n')}` : '.'}`
    }
    case 'largest': {
      const p = period ?? monthPeriod(req.today, 0)
      const n = Number(
        /\btop\s+(\d{1,2})\b|\b(\d{1,2})\s+(largest|biggest)\b/
          .exec(text.toLowerCase())
          ?.slice(1)
          .find(Boolean) ?? 5,
      )
      const outcome = await req.runTool('reports_largestTransactions', {
        fromDate: p.fromDate,
        toDate: p.toDate,
        limit: Math.min(Math.max(n, 1), 50),
      })
      if (!outcome.ok) return refusedText(outcome)
      const { items } = outcome.result as {
        items: { date: string; amountCents: string; payee: string | null; category: string | null }[]
      }
      if (items.length === 0) return `There was no money out ${p.label} (${p.fromDate} to ${p.toDate}).`
      return `The largest transactions ${p.label} (${p.fromDate} to ${p.toDate}):\n${items
        .map(
          (t) =>
            `• ${t.date} ${t.payee ?? 'No payee'}: ${money(BigInt(t.amountCents) * -1n)}${t.category ? ` (${t.category})` : ''}`,
        )
        .join('\n')}`
    }
    case 'changes': {
      const now = monthPeriod(req.today, 0)
      const before = monthPeriod(req.today, -1)
      const thisMonth = { ...now, toDate: req.today }
      const a = await req.runTool('reports_spending', {
        fromDate: before.fromDate,
        toDate: before.toDate,
        groupBy: 'category',
      })
      const b = await req.runTool('reports_spending', {
        fromDate: thisMonth.fromDate,
        toDate: thisMonth.toDate,
        groupBy: 'category',
      })
      if (!a.ok) return refusedText(a)
      if (!b.ok) return refusedText(b)
      type R = { spentCents: string; groups: { id: string | null; name: string; spentCents: string }[] }
      const last = a.result as R
      const cur = b.result as R
      const keys = new Map<string, { name: string; last: bigint; now: bigint }>()
      const pos = (c: string) => (BigInt(c) > 0n ? BigInt(c) : 0n)
      for (const g of last.groups) keys.set(g.id ?? '-', { name: g.name, last: pos(g.spentCents), now: 0n })
      for (const g of cur.groups) {
        const e = keys.get(g.id ?? '-') ?? { name: g.name, last: 0n, now: 0n }
        keys.set(g.id ?? '-', { ...e, now: pos(g.spentCents) })
      }
      const moves = [...keys.values()]
        .map((e) => ({ ...e, diff: e.now - e.last }))
        .filter((e) => e.diff !== 0n)
        .sort((x, y) => ((y.diff > 0n ? y.diff : -y.diff) > (x.diff > 0n ? x.diff : -x.diff) ? 1 : -1))
        .slice(0, 6)
      return `Spending this month so far (${thisMonth.fromDate} to ${thisMonth.toDate}) is ${money(cur.spentCents)}, against ${money(last.spentCents)} for all of last month (${before.fromDate} to ${before.toDate}).${
        moves.length
          ? `\nBiggest changes by category:\n${moves.map((m) => `• ${m.name}: ${money(m.last)} → ${money(m.now)} (${m.diff > 0n ? '+' : ''}${money(m.diff)})`).join('\n')}`
          : ''
      }`
    }
    case 'balances':
    case 'netWorth': {
      const outcome = await req.runTool('accounts_list', { status: 'open' })
      if (!outcome.ok) return refusedText(outcome)
      const { items } = outcome.result as {
        items: { name: string; type: string; currency: string; balanceCents: string }[]
      }
      const total = items
        .filter((a) => a.currency === req.currency)
        .reduce((s, a) => s + BigInt(a.balanceCents), 0n)
      if (intent === 'netWorth') {
        const assets = items
          .filter((a) => a.currency === req.currency && BigInt(a.balanceCents) > 0n)
          .reduce((s, a) => s + BigInt(a.balanceCents), 0n)
        return `Your net worth across open accounts in ${req.currency} is ${money(total)}: ${money(assets)} in assets and ${money(assets - total)} owed.`
      }
      return `Balances of your open accounts:\n${items.map((a) => `• ${a.name}: ${formatCents(a.balanceCents, a.currency)}`).join('\n')}\nTotal in ${req.currency}: ${money(total)}.`
    }
    case 'budget': {
      const p = period && /^\d{4}-\d{2}-01$/.test(period.fromDate) ? period : monthPeriod(req.today, 0)
      const month = p.fromDate.slice(0, 7)
      const outcome = await req.runTool('budgets_get', { month })
      if (!outcome.ok) return refusedText(outcome)
      type Cat = {
        id: string
        name: string
        assignedCents: string
        activityCents: string
        availableCents: string
      }
      const snap = outcome.result as {
        readyToAssignCents: string
        groups: { isIncome: boolean; categories: Cat[] }[]
      }
      const cats = snap.groups.filter((g) => !g.isIncome).flatMap((g) => g.categories)
      const named = findNamed(text, cats)
      if (named) {
        const c = named.item
        const available = BigInt(c.availableCents)
        return `${c.name} in ${month}: ${money(c.assignedCents)} assigned, ${money(BigInt(c.activityCents) * -1n)} spent, ${available < 0n ? `overspent by ${money(-available)}` : `${money(available)} left`}.`
      }
      const over = cats.filter((c) => BigInt(c.availableCents) < 0n)
      return `Budget for ${month}: ${money(snap.readyToAssignCents)} ready to assign. ${
        over.length
          ? `Overspent: ${over.map((c) => `${c.name} (${money(-BigInt(c.availableCents))})`).join(', ')}.`
          : 'No category is overspent.'
      }`
    }
    case 'move': {
      const amount = parseAmountCents(text)
      const lower = text.toLowerCase()
      const at = lower.search(/\bfrom\b/)
      const to = lower.slice(at).search(/\b(to|into)\b/) + at
      const names = await catalog(req)
      const from = findNamed(text.slice(at + 4, to), names.categories)
      const into = findNamed(text.slice(to).replace(/^\s*(to|into)\s+/i, ''), names.categories)
      if (!amount || !from || !into) {
        return `I could not tell ${!amount ? 'how much to move' : !from ? 'which category to take it from' : 'which category to move it to'}. Say it like: "Move 50 from Dining Out to Groceries this month".`
      }
      const month = (
        period && /^\d{4}-\d{2}-01$/.test(period.fromDate)
          ? period.fromDate
          : monthPeriod(req.today, 0).fromDate
      ).slice(0, 7)
      const outcome = await req.runTool('budgets_move', {
        month,
        fromCategoryId: from.item.id,
        toCategoryId: into.item.id,
        amountCents: amount,
      })
      if (!outcome.ok) return refusedText(outcome)
      return `I prepared a move of ${money(String(amount))} from ${from.item.name} to ${into.item.name} in ${month}. Nothing has changed yet: confirm the action to do it.`
    }
    case 'categorize': {
      const names = await catalog(req)
      const split = /\b(as|under|into|to|in)\b(?!.*\b(as|under|into)\b)/i.exec(text)
      const payee = findNamed(split ? text.slice(0, split.index) : text, names.payees)
      const category = split ? findNamed(text.slice(split.index), names.categories) : null
      if (!payee || !category) {
        return `I could not tell ${!payee ? 'which payee' : 'which category'} you mean. Say it like: "Categorize every Netflix transaction as Subscriptions".`
      }
      const ids: string[] = []
      let cursor: string | undefined
      do {
        const page = (await req.read('transactions.list', {
          payeeId: payee.item.id,
          limit: 100,
          cursor,
        })) as {
          items: { id: string; categoryId: string | null }[]
          nextCursor: string | null
        }
        for (const t of page.items) if (t.categoryId !== category.item.id) ids.push(t.id)
        cursor = page.nextCursor ?? undefined
      } while (cursor && ids.length < 500)
      if (ids.length === 0) return `Every ${payee.item.name} transaction is already in ${category.item.name}.`
      const outcome = await req.runTool('transactions_bulkUpdate', {
        ids: ids.slice(0, 500),
        patch: { categoryId: category.item.id },
      })
      if (!outcome.ok) return refusedText(outcome)
      return `I prepared putting ${ids.length} ${payee.item.name} transaction${ids.length === 1 ? '' : 's'} in ${category.item.name}. Nothing has changed yet: confirm the action to do it.`
    }
    case 'createRule': {
      const names = await catalog(req)
      const split = /\b(as|under|into|to|in)\b(?!.*\b(as|under|into)\b)/i.exec(text)
      const head = split ? text.slice(0, split.index) : text
      const payee = findNamed(head.replace(/.*\brule\b/i, ''), names.payees)
      const category = split ? findNamed(text.slice(split.index), names.categories) : null
      const word =
        payee?.item.name ?? /\bfor\s+["']?([\p{L}\p{N} .&'-]{2,40}?)["']?\s*$/iu.exec(head)?.[1]?.trim()
      if (!word || !category) {
        return `I could not tell ${!word ? 'what the rule should match' : 'which category it should set'}. Say it like: "Create a rule for Netflix as Subscriptions".`
      }
      const outcome = await req.runTool('rules_create', {
        name: `${word} → ${category.item.name}`,
        predicate: {
          combinator: 'all',
          conditions: [{ field: 'payee_name', op: 'contains', value: word.toLowerCase() }],
        },
        action: { setCategoryId: category.item.id },
      })
      if (!outcome.ok) return refusedText(outcome)
      return `I prepared a rule: payee name contains "${word.toLowerCase()}" → ${category.item.name}. Nothing has changed yet: confirm the action to create it.`
    }
    default:
      return `I did not understand that. ${help()}`
  }
}

export type { Period }
