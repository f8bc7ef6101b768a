import { type AnswerKit, bullets, Decline, formatCents, mentioned, use } from './answer-kit.ts'

interface Account {
  id: string
  name: string
  type: string
  currency: string
  balanceCents: string
}

async function openAccounts(kit: AnswerKit): Promise<Account[]> {
  return (await use<{ items: Account[] }>(kit, 'accounts_list', { status: 'open' })).items
}

/** One account's balance, or every open account's with the total in the base currency. */
export async function answerBalances(kit: AnswerKit): Promise<string> {
  const items = await openAccounts(kit)
  const named = mentioned(kit, 'account')
  if (named) {
    const a = items.find((i) => i.id === named.item.id)
    if (!a) return `${named.item.name} is not an open account.`
    return `${a.name} has a balance of ${formatCents(a.balanceCents, a.currency)}.`
  }
  if (kit.u.unknownWords.length > 0) {
    throw new Decline(`I could not find an account called "${kit.u.unknownWords.join(' ')}".`)
  }
  const total = items
    .filter((a) => a.currency === kit.req.currency)
    .reduce((s, a) => s + BigInt(a.balanceCents), 0n)
  return `Balances of your open accounts:\n${bullets(items.map((a) => `${a.name}: ${formatCents(a.balanceCents, a.currency)}`))}\nTotal in ${kit.req.currency}: ${kit.money(total)}.`
}

/** Open accounts in the base currency: what is owned less what is owed. */
export async function answerNetWorth(kit: AnswerKit): Promise<string> {
  const items = (await openAccounts(kit)).filter((a) => a.currency === kit.req.currency)
  const assets = items
    .filter((a) => BigInt(a.balanceCents) > 0n)
    .reduce((s, a) => s + BigInt(a.balanceCents), 0n)
  const owed = items
    .filter((a) => BigInt(a.balanceCents) < 0n)
    .reduce((s, a) => s - BigInt(a.balanceCents), 0n)
  return `Your net worth across open accounts in ${kit.req.currency} is ${kit.money(assets - owed)}: ${kit.money(assets)} in assets less ${kit.money(owed)} owed.`
}

interface Projection {
  payoffDate: string
  paymentCents: string
  remainingInterestCents: string
}

/** Each loan's payoff date and the interest still to pay, from its amortization. */
export async function answerLoans(kit: AnswerKit): Promise<string> {
  const named = mentioned(kit, 'account')
  const loans = (await openAccounts(kit)).filter(
    (a) => a.type === 'loan' && (!named || a.id === named.item.id),
  )
  if (loans.length === 0 && named) throw new Decline(`${named.item.name} is not a loan account.`)
  if (loans.length === 0) return 'You have no open loan accounts.'
  const out: string[] = []
  for (const loan of loans) {
    const outcome = await kit.req.runTool('loans_projection', { id: loan.id })
    if (!outcome.ok) {
      out.push(`${loan.name}: no terms yet, so I cannot project it.`)
      continue
    }
    const p = outcome.result as Projection
    out.push(
      `${loan.name}: paid off on ${p.payoffDate}, ${formatCents(p.remainingInterestCents, loan.currency)} of interest left to pay, ${formatCents(p.paymentCents, loan.currency)} a month.`,
    )
  }
  return out.length === 1 ? out[0]! : `Your loans:\n${bullets(out)}`
}
