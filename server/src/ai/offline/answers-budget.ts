import { type AnswerKit, bullets, mentioned, periodOf, use } from './answer-kit.ts'
import { monthPeriod } from './periods.ts'

interface Cell {
  id: string
  name: string
  assignedCents: string
  activityCents: string
  availableCents: string
}

interface Snapshot {
  readyToAssignCents: string
  groups: { isIncome: boolean; categories: Cell[] }[]
}

/** The month a budget question is about: the one it names, or this month. */
function budgetMonth(kit: AnswerKit): string {
  const p = periodOf(kit, monthPeriod(kit.req.today, 0))
  return p.fromDate.slice(0, 7)
}

async function snapshot(kit: AnswerKit, month: string): Promise<Cell[] & { rta: string }> {
  const snap = await use<Snapshot>(kit, 'budgets_get', { month })
  return Object.assign(
    snap.groups.filter((g) => !g.isIncome).flatMap((g) => g.categories),
    { rta: snap.readyToAssignCents },
  )
}

const overspentLine = (kit: AnswerKit, c: Cell) =>
  `${c.name}: overspent by ${kit.money(-BigInt(c.availableCents))}`

/** A category's assigned, spent and available, or the month's status. */
export async function answerBudget(kit: AnswerKit): Promise<string> {
  const month = budgetMonth(kit)
  const cells = await snapshot(kit, month)
  const named = mentioned(kit, 'category')
  const c = named && cells.find((x) => x.id === named.item.id)
  if (c) {
    const available = BigInt(c.availableCents)
    return `${c.name} in ${month}: ${kit.money(c.assignedCents)} assigned, ${kit.money(-BigInt(c.activityCents))} spent, ${
      available < 0n ? `overspent by ${kit.money(-available)}` : `${kit.money(available)} left`
    }.`
  }
  if (named) return `${named.item.name} is not a budget category (income categories have no budget).`
  const over = cells.filter((x) => BigInt(x.availableCents) < 0n)
  const left = cells.reduce((s, x) => s + BigInt(x.availableCents), 0n)
  return `Budget for ${month}: ${kit.money(cells.rta)} ready to assign, ${kit.money(left)} available across categories. ${
    over.length
      ? `Overspent:\n${bullets(over.map((x) => overspentLine(kit, x)))}`
      : 'No category is overspent.'
  }`
}

/** The categories whose available is below zero. */
export async function answerOverspent(kit: AnswerKit): Promise<string> {
  const month = budgetMonth(kit)
  const over = (await snapshot(kit, month)).filter((x) => BigInt(x.availableCents) < 0n)
  return over.length
    ? `Overspent in ${month}:\n${bullets(over.map((x) => overspentLine(kit, x)))}`
    : `No category is overspent in ${month}.`
}

/** Money not yet given a category. */
export async function answerReadyToAssign(kit: AnswerKit): Promise<string> {
  const month = budgetMonth(kit)
  const cells = await snapshot(kit, month)
  return `Ready to assign in ${month}: ${kit.money(cells.rta)}.`
}

interface Forecast {
  month: string
  categories: {
    categoryId: string | null
    actualCents: string
    scheduledCents: string
    projectedCents: string
    totalCents: string
  }[]
  totals: { actualCents: string; scheduledCents: string; projectedCents: string; totalCents: string }
}

/** This month's spending forecast: so far, scheduled, projected, in total or for one category. */
export async function answerForecast(kit: AnswerKit): Promise<string> {
  const month = budgetMonth(kit)
  const f = await use<Forecast>(kit, 'forecasts_get', { month })
  const named = mentioned(kit, 'category')
  const line = named ? f.categories.find((c) => c.categoryId === named.item.id) : f.totals
  const what = named ? named.item.name : 'spending'
  if (!line) return `There is no ${what} forecast for ${month}: nothing spent, scheduled or projected.`
  return `Forecast ${what} for ${month}: ${kit.money(line.totalCents)} in all: ${kit.money(line.actualCents)} so far, ${kit.money(line.scheduledCents)} scheduled and ${kit.money(line.projectedCents)} projected.`
}
