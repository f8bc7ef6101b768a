import { type AnswerKit, periodOf, use } from './answer-kit.ts'
import { monthPeriod } from './periods.ts'

const proposed = 'Nothing has changed yet: confirm the action to do it.'

/** A budget move between two categories, proposed: the one after "from" (or "out of") gives. */
export async function answerMove(kit: AnswerKit): Promise<string> {
  const cats = kit.u.mentions.filter((m) => m.item.kind === 'category')
  const amount = kit.u.amountCents
  const words = kit.u.masked.split(' ')
  const giverAt = words.findIndex((w, i) => w === 'from' || (w === 'of' && words[i - 1] === 'out'))
  const tokenIndexes = words.flatMap((w, i) => (w === 'xcategoryx' ? [i] : []))
  const giverToken = tokenIndexes.findIndex((i) => i > giverAt)
  if (!amount || cats.length !== 2 || giverAt < 0 || giverToken < 0) {
    return `I could not tell ${!amount ? 'how much to move' : 'which categories to move it between'}. Say it like: "Move 50 from Dining Out to Groceries this month".`
  }
  const from = cats[giverToken]!
  const into = cats[1 - giverToken]!
  const month = periodOf(kit, monthPeriod(kit.req.today, 0)).fromDate.slice(0, 7)
  await use(kit, 'budgets_move', {
    month,
    fromCategoryId: from.item.id,
    toCategoryId: into.item.id,
    amountCents: amount,
  })
  return `I prepared a move of ${kit.money(String(amount))} from ${from.item.name} to ${into.item.name} in ${month}. ${proposed}`
}

/** Every transaction of a payee put in a category, proposed (up to 500). */
export async function answerCategorize(kit: AnswerKit): Promise<string> {
  const payee = kit.u.mentions.find((m) => m.item.kind === 'payee')
  const category = kit.u.mentions.find((m) => m.item.kind === 'category')
  if (!payee || !category) {
    return `I could not tell ${!payee ? 'which payee' : 'which category'} you mean. Say it like: "Categorize every Netflix transaction as Subscriptions".`
  }
  const ids: string[] = []
  let cursor: string | undefined
  do {
    const page = (await kit.req.read('transactions.list', {
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
  await use(kit, 'transactions_bulkUpdate', {
    ids: ids.slice(0, 500),
    patch: { categoryId: category.item.id },
  })
  const n = Math.min(ids.length, 500)
  return `I prepared putting ${n} ${payee.item.name} transaction${n === 1 ? '' : 's'} in ${category.item.name}. ${proposed}`
}

/** A rule "payee name contains …" setting a category, proposed; the payee may be new to the household. */
export async function answerCreateRule(kit: AnswerKit): Promise<string> {
  const payee = kit.u.mentions.find((m) => m.item.kind === 'payee')
  const category = kit.u.mentions.find((m) => m.item.kind === 'category')
  const word =
    payee?.item.name ??
    /\b(?:for|that|so|whenever|time)\s+([\p{L}\p{N}&'-]+(?:\s+[\p{L}\p{N}&'-]+)?)\s+(?:as|to|in|into|under|goes|is|shows|appears)\b/u.exec(
      kit.req.message.toLowerCase(),
    )?.[1]
  if (!word || !category) {
    return `I could not tell ${!word ? 'what the rule should match' : 'which category it should set'}. Say it like: "Create a rule for Netflix as Subscriptions".`
  }
  await use(kit, 'rules_create', {
    name: `${word} → ${category.item.name}`,
    predicate: {
      combinator: 'all',
      conditions: [{ field: 'payee_name', op: 'contains', value: word.toLowerCase() }],
    },
    action: { setCategoryId: category.item.id },
  })
  return `I prepared a rule: payee name contains "${word.toLowerCase()}" → ${category.item.name}. ${proposed}`
}
