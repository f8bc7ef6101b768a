import { afterEach, describe, expect, it } from 'vitest'
import { newOwner, useTestServer } from '../src/index.ts'
import { closeDevices, eventually, expectConverged, newDevice } from './devices.ts'

const server = useTestServer()
afterEach(async () => {
  await closeDevices()
})

const H = '/households/current'

describe('loans through the SDK', () => {
  it('answers terms history, projection and simulation on the device as REST does', async () => {
    const owner = await newOwner(server)
    const { api } = owner
    const loan = (
      await api.post(`${H}/accounts`, { name: 'Mortgage', type: 'loan', openingBalanceCents: -20_000_000 })
    ).body
    const today: string = (await api.get(`${H}/accounts/${loan.id}/balance-history`)).body.toDate
    const [y, m] = today.split('-').map(Number) as [number, number]
    const start = `${y - 1}-${String(m).padStart(2, '0')}-01`
    const terms = {
      effectiveDate: start,
      principalCents: 20_000_000,
      annualRatePercent: '6.5',
      termMonths: 360,
      escrowCents: 25_000,
      firstPaymentDate: start,
    }
    expect((await api.put(`${H}/accounts/${loan.id}/loan-terms`, terms)).status).toBe(200)
    expect(
      (await api.post(`${H}/transactions`, { accountId: loan.id, date: today, amountCents: 151_414 })).status,
    ).toBe(201)
    const device = await newDevice(server, owner)
    await device.sync.whenSynced()

    const rest = async (path: string) => {
      const res = await api.get(`${H}/accounts/${loan.id}/${path}`)
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body
    }
    expect(await device.query.loans.termsHistory({ id: loan.id })).toEqual(await rest('loan-terms-history'))
    const projection = await device.query.loans.projection({ id: loan.id })
    expect(projection).toEqual(await rest('loan-projection'))
    expect(projection.thisMonth.paidCents).toBe('151414')
    expect(await device.query.loans.projection({ id: loan.id, extraMonthlyCents: 10_000 })).toEqual(
      await rest('loan-projection?extraMonthlyCents=10000'),
    )
    const target = `${y + 10}-${String(m).padStart(2, '0')}`
    expect(await device.query.loans.simulation({ id: loan.id, targetPayoffYearMonth: target })).toEqual(
      await rest(`loan-simulation?targetPayoffYearMonth=${target}`),
    )
    expect(
      await device.query.loans.simulation({
        id: loan.id,
        oneTimeExtraCents: 500_000,
        extraMonthlyCents: 5_000,
      }),
    ).toEqual(await rest('loan-simulation?oneTimeExtraCents=500000&extraMonthlyCents=5000'))

    // The same refusals, with the same codes, on the device.
    const cash = (await api.post(`${H}/accounts`, { name: 'Checking', type: 'cash' })).body
    await eventually(() => device.query.accounts.get({ id: cash.id }))
    await expect(device.query.loans.projection({ id: cash.id })).rejects.toMatchObject({
      code: 'NOT_A_LOAN_ACCOUNT',
      status: 422,
    })
    await expect(device.query.loans.simulation({ id: loan.id, paymentCents: 100 })).rejects.toMatchObject({
      code: 'LOAN_PAYMENT_TOO_LOW',
      status: 422,
    })
  }, 120_000)

  it('sets terms on the device with the same result as on the server, one row per date across devices', async () => {
    const owner = await newOwner(server)
    const { api } = owner
    const loan = (await api.post(`${H}/accounts`, { name: 'Car', type: 'loan' })).body
    const phone = await newDevice(server, owner)
    const laptop = await newDevice(server, owner)
    await Promise.all([phone.sync.whenSynced(), laptop.sync.whenSynced()])

    const set = await phone.mutate.loans.setTerms({
      id: loan.id,
      effectiveDate: '2030-01-01',
      principalCents: 2_500_000,
      annualRatePercent: '4.25',
      termMonths: 60,
    })
    await phone.sync.whenSynced()
    const history = (await api.get(`${H}/accounts/${loan.id}/loan-terms-history`)).body
    expect(history.items).toEqual([set])
    expect(set).toMatchObject({ firstPaymentDate: '2030-02-01', annualRatePercent: '4.25', termMonths: 60 })

    // Both devices change the terms of one later date: they meet on one row, the last write wins.
    // The laptop must hold the phone's first terms before it drafts on them: its own queue being
    // empty (whenSynced) does not mean the phone's delta has reached it yet.
    await expectConverged(server, owner.householdId, [phone, laptop])
    await Promise.all([
      phone.mutate.loans.setTerms({ id: loan.id, effectiveDate: '2031-01-01', escrowCents: 1_000 }),
      laptop.mutate.loans.setTerms({ id: loan.id, effectiveDate: '2031-01-01', escrowCents: 2_000 }),
    ])
    await expectConverged(server, owner.householdId, [phone, laptop])
    const after = (await api.get(`${H}/accounts/${loan.id}/loan-terms-history`)).body
    expect(after.items.map((t: any) => t.effectiveDate)).toEqual(['2031-01-01', '2030-01-01'])
    expect(await phone.query.loans.termsHistory({ id: loan.id })).toEqual(after)
    // Taking a date's terms back on a device takes them back everywhere.
    await laptop.mutate.loans.deleteTerms({ id: loan.id, effectiveDate: '2031-01-01' })
    await expectConverged(server, owner.householdId, [phone, laptop])
    expect((await api.get(`${H}/accounts/${loan.id}/loan-terms-history`)).body.items).toEqual([set])
    expect(await laptop.query.loans.projection({ id: loan.id })).toEqual(
      (await api.get(`${H}/accounts/${loan.id}/loan-projection`)).body,
    )
  }, 120_000)
})
