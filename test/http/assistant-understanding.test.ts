import { describe, expect, it } from 'vitest'
import { useTestServer } from '../src/index.ts'
import { chat, relativeDates } from './assistant-fixture.ts'
import { createCategory, createGroup, expectStatus, H } from './catalog-fixture.ts'
import { createAccount, createTransaction } from './ledger-fixture.ts'

const server = useTestServer()
const AI = `${H}/ai`
const d = relativeDates()
const MONTHS = 'January February March April May June July August September October November December'.split(
  ' ',
)
const lastMonthName = MONTHS[Number(d.lastMonth.slice(5)) - 1]!
const range = (month: string) => {
  const [y, m] = month.split('-').map(Number) as [number, number]
  return { fromDate: `${month}-01`, toDate: `${month}-${new Date(Date.UTC(y, m, 0)).getUTCDate()}` }
}

/**
 * The household of issue 40's six failures: last month a 6,400.00 salary in an income category,
 * groceries with a 12.50 refund, dining out, Netflix; this month less; a monthly Netflix bill.
 */
async function household() {
  const owner = await server.newOwner()
  const { api } = owner
  expectStatus(await api.post(`${AI}/consent`), 200)
  const account = await createAccount(api, { name: 'Everyday Checking' })
  const living = await createGroup(api, 'Living')
  const income = await createGroup(api, 'Income', { isIncome: true })
  const groceries = await createCategory(api, living.id, 'Groceries')
  const dining = await createCategory(api, living.id, 'Dining Out')
  const salary = await createCategory(api, income.id, 'Salary')
  const row = (date: string, amountCents: number, payeeName: string, categoryId?: string) =>
    createTransaction(api, account.id, { date, amountCents, payeeName, ...(categoryId && { categoryId }) })
  await row(d.lastMonthDay, 640_000, 'Acme Payroll', salary.id)
  await row(d.lastMonthDay, -18_240, 'FreshMart', groceries.id)
  await row(d.lastMonthDay, -6_110, 'FreshMart', groceries.id)
  await row(d.lastMonthDay, 1_250, 'FreshMart', groceries.id)
  await row(d.lastMonthDay, -27_500, 'Bistro Verde', dining.id)
  await row(d.lastMonthDay, -1_599, 'Netflix')
  await row(d.thisMonthDay, -9_900, 'FreshMart', groceries.id)
  await row(d.thisMonthDay, -1_599, 'Netflix')
  return { ...owner, account, groceries, dining, salary }
}

const ask = (api: any, message: string) => chat(server.url, api, message)
const cents = (text: string) => BigInt(text.replace(/[$,.]/g, ''))
const figures = (text: string) => [...text.matchAll(/-?\$[\d,]+\.\d\d/g)].map((m) => cents(m[0]))
const toolsCalled = (answer: Awaited<ReturnType<typeof ask>>) =>
  answer.events.filter((e) => e.event === 'tool.call').map((e) => e.data.name)

describe('issue 40: the six failures, through the real stream', () => {
  it('a breakdown headline is the sum of its lines, net of refunds, and what REST calls netSpentCents', async () => {
    const { api } = await household()
    const answer = await ask(api, "break down last month's spending by category")
    const [headline, ...lines] = answer.text.split('\n')
    const total = figures(headline!)[0]!
    expect(lines.map((l) => figures(l)[0]!).reduce((a, b) => a + b, 0n)).toBe(total)
    const rest = expectStatus(
      await api.get(
        `${H}/reports/spending?fromDate=${range(d.lastMonth).fromDate}&toDate=${range(d.lastMonth).toDate}`,
      ),
      200,
    )
    // 182.40 + 61.10 - 12.50 groceries, 275.00 dining, 15.99 Netflix: 521.99 net, 534.49 gross.
    expect(rest).toMatchObject({ netSpentCents: '52199', spentCents: '53449' })
    expect(total).toBe(52199n)
    expect(answer.text).toContain('Groceries: $231.00')
  })

  it('earnings count income categories only: a refund is not earnings', async () => {
    const { api } = await household()
    const answer = await ask(api, `how much did we earn in ${lastMonthName}?`)
    expect(figures(answer.text)[0]).toBe(640_000n)
    const rest = expectStatus(
      await api.get(
        `${H}/reports/spending?fromDate=${range(d.lastMonth).fromDate}&toDate=${range(d.lastMonth).toDate}&groupBy=none`,
      ),
      200,
    )
    expect(rest).toMatchObject({ earnedCents: '640000', incomeCents: '641250' })
  })

  it('"which payee did we pay the most" answers by payee, never with the category breakdown', async () => {
    const { api } = await household()
    const answer = await ask(api, 'which payee did we pay the most last month?')
    expect(answer.text).toMatch(/^The payee you spent the most on last month .* was Bistro Verde: \$275\.00/)
    expect(answer.text).not.toMatch(/By category/)
    const call = answer.events.find((e) => e.event === 'tool.call')!.data
    expect(call).toMatchObject({ name: 'reports_spending', args: { groupBy: 'payee' } })
  })

  it('upcoming bills come from recurrences_upcoming', async () => {
    const { api, account } = await household()
    const day = Math.min(28, new Date().getUTCDate() + 3)
    expectStatus(
      await api.post(`${H}/recurrences`, {
        name: 'Netflix plan',
        accountId: account.id,
        amountCents: -1_599,
        frequency: 'monthly',
        dayOfMonth: day,
        startDate: d.thisMonthDay,
      }),
      201,
    )
    const answer = await ask(api, 'what bills are coming up?')
    expect(toolsCalled(answer)).toEqual(['recurrences_upcoming'])
    expect(answer.text).toContain('Netflix plan: $15.99')
    expect(answer.text).not.toContain('not available yet')
  })

  it('compares two periods with the figures REST gives for each', async () => {
    const { api } = await household()
    const answer = await ask(api, 'how does this month stack up against last month?')
    const now = expectStatus(
      await api.get(
        `${H}/reports/spending?fromDate=${range(d.thisMonth).fromDate}&toDate=${range(d.thisMonth).toDate}&groupBy=none`,
      ),
      200,
    )
    expect(figures(answer.text).slice(0, 2)).toEqual([BigInt(now.netSpentCents), 52199n])
    expect(answer.text).toMatch(/\$407\.00 less/)
  })

  it('offers no identity, key, invitation or membership operation as a tool', async () => {
    const { api } = await household()
    const { names } = expectStatus(await api.get(`${AI}/tools`), 200)
    for (const never of [
      'invitations_create',
      'invitations_list',
      'invitations_redeem',
      'invitations_revoke',
      'households_leave',
    ]) {
      expect(names).not.toContain(never)
    }
    expect(names).toContain('recurrences_upcoming')
  })
})

describe('a question not understood is never answered as another', () => {
  it('says what it did not understand, offers the closest questions, and runs no tool', async () => {
    const { api } = await household()
    for (const q of [
      'what did we spend in the summer?',
      'how much did we spend on zebras last month',
      'purple monkey dishwasher',
    ]) {
      const answer = await ask(api, q)
      expect(answer.text, q).toMatch(/^I did not understand that well enough to answer/)
      expect(answer.text).toContain('•')
      expect(toolsCalled(answer), q).toEqual([])
    }
    const declined = await ask(api, 'invite my wife to the household')
    expect(declined.text).toMatch(/^Sorry, that is not something I can help with/)
    expect(toolsCalled(declined)).toEqual([])
  })

  it('reads casual phrasing: typos, "last mo", "ytd", everyday words for categories', async () => {
    const { api } = await household()
    expect((await ask(api, 'how much did we blow on dinning out last mo')).text).toContain('$275.00')
    expect((await ask(api, 'grocerys ytd')).text).toContain('Groceries')
    expect((await ask(api, 'how many times did we eat out last month')).text).toMatch(
      /^1 transaction in Dining Out/,
    )
  })
})
