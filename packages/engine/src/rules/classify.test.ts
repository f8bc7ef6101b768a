import { describe, expect, it } from 'vitest'
import { RuleSet, type RuleSpec, type RuleSubject } from './classify.ts'
import { compilePredicate, prepareFacts } from './conditions.ts'
import { ActionSchema, PredicateSchema } from './schema.ts'

const id = (n: number) => `01JD5Z9Y6XQ3M4N5P6R7S8T${String(n).padStart(3, '0')}`.replace(/[ILOU]/g, '0')
const GROCERIES = id(1)
const DINING = id(2)
const AMAZON = id(3)
const TAG = id(4)
const FLAG = id(5)
const ACCOUNT = id(6)

function rule(
  n: number,
  conditions: unknown[],
  action: unknown,
  combinator: 'all' | 'any' = 'all',
): RuleSpec {
  return {
    id: `rule${n}`,
    predicate: PredicateSchema.parse({ combinator, conditions }),
    action: ActionSchema.parse(action),
  }
}

const row: RuleSubject = {
  payeeId: null,
  payeeName: null,
  importedPayee: 'AMZN Mktp US',
  memo: 'order 123',
  categoryId: null,
  accountId: ACCOUNT,
  amountCents: -2599,
  date: '2026-11-20',
  tagIds: [],
  flagIds: [],
  hasSplits: false,
}

const names = new Map([[AMAZON, 'Amazon']])
const amzn = { field: 'imported_payee', op: 'contains', value: 'amzn' }

describe('RuleSet.classify', () => {
  it('sets category and payee, appends and prepends the memo, adds tags and flags, and records it all', () => {
    const rules = new RuleSet(
      [
        rule(1, [amzn], {
          setPayeeId: AMAZON,
          setCategoryId: GROCERIES,
          prependMemo: '[web] ',
          appendMemo: ' #online',
          addTagIds: [TAG],
          addFlagIds: [FLAG],
        }),
      ],
      names,
    )
    const out = rules.classify(row)
    expect(out).toMatchObject({
      payeeId: AMAZON,
      categoryId: GROCERIES,
      memo: '[web] order 123 #online',
      addedTagIds: [TAG],
      addedFlagIds: [FLAG],
    })
    expect(out.applications).toEqual([
      {
        ruleId: 'rule1',
        changes: {
          payeeId: { from: null, to: AMAZON },
          categoryId: { from: null, to: GROCERIES },
          memo: { from: 'order 123', to: '[web] order 123 #online' },
          addedTagIds: [TAG],
          addedFlagIds: [FLAG],
        },
      },
    ])
  })

  it('lets the first matching rule win each field; later rules fill only what is left', () => {
    const rules = new RuleSet(
      [
        rule(1, [amzn], { setCategoryId: GROCERIES }),
        rule(2, [amzn], { setCategoryId: DINING, appendMemo: '!' }),
      ],
      names,
    )
    const out = rules.classify(row)
    expect(out.categoryId).toBe(GROCERIES)
    expect(out.memo).toBe('order 123!')
    expect(out.applications.map((a) => [a.ruleId, Object.keys(a.changes)])).toEqual([
      ['rule1', ['categoryId']],
      ['rule2', ['memo']],
    ])
  })

  it('stops at a matching rule with stopProcessing', () => {
    const rules = new RuleSet(
      [
        rule(1, [amzn], { appendMemo: ' a', stopProcessing: true }),
        rule(2, [amzn], { setCategoryId: DINING }),
      ],
      names,
    )
    expect(rules.classify(row)).toMatchObject({ categoryId: null, memo: 'order 123 a' })
    // A rule that does not match does not stop anything.
    const notMatching = new RuleSet(
      [
        rule(1, [{ field: 'memo', op: 'is', value: 'x' }], { stopProcessing: true }),
        rule(2, [amzn], { setCategoryId: DINING }),
      ],
      names,
    )
    expect(notMatching.classify(row).categoryId).toBe(DINING)
  })

  it('lets later rules see what earlier ones set: a payee set by one rule is tested by the next', () => {
    const rules = new RuleSet(
      [
        rule(1, [amzn], { setPayeeId: AMAZON }),
        rule(2, [{ field: 'payee_name', op: 'is', value: 'amazon' }], { setCategoryId: GROCERIES }),
        rule(3, [{ field: 'category_id', op: 'is', value: GROCERIES }], { addTagIds: [TAG] }),
      ],
      names,
    )
    expect(rules.classify(row)).toMatchObject({ payeeId: AMAZON, categoryId: GROCERIES, addedTagIds: [TAG] })
  })

  it('never sets a locked field or a split row own category, and records nothing it did not change', () => {
    const rules = new RuleSet([rule(1, [amzn], { setCategoryId: GROCERIES, setPayeeId: AMAZON })], names)
    const locked = rules.classify(
      { ...row, categoryId: DINING, payeeId: id(9) },
      { categoryId: true, payeeId: true },
    )
    expect(locked).toMatchObject({ categoryId: DINING, payeeId: id(9), applications: [] })
    expect(rules.classify({ ...row, hasSplits: true })).toMatchObject({ categoryId: null, payeeId: AMAZON })
    const same = rules.classify({ ...row, categoryId: GROCERIES, payeeId: AMAZON, payeeName: 'Amazon' })
    expect(same.applications).toEqual([])
  })

  it('adds only tags and flags the row lacks; a memo past 1000 characters is left as it was', () => {
    const rules = new RuleSet(
      [rule(1, [amzn], { addTagIds: [TAG, id(8)], appendMemo: 'x'.repeat(500) })],
      names,
    )
    const out = rules.classify({ ...row, tagIds: [TAG], memo: 'order 123'.padEnd(501, '.') })
    expect(out.addedTagIds).toEqual([id(8)])
    expect(out.memo).toBe('order 123'.padEnd(501, '.'))
  })

  it('changes nothing when a rule runs again over the row it already changed, for every action', () => {
    const rules = new RuleSet(
      [
        rule(1, [amzn], {
          setPayeeId: AMAZON,
          setCategoryId: GROCERIES,
          prependMemo: '[web] ',
          appendMemo: ' #online',
          addTagIds: [TAG],
          addFlagIds: [FLAG],
        }),
      ],
      names,
    )
    const first = rules.classify(row)
    const again = rules.classify({
      ...row,
      payeeId: first.payeeId,
      payeeName: 'Amazon',
      categoryId: first.categoryId,
      memo: first.memo,
      tagIds: first.addedTagIds,
      flagIds: first.addedFlagIds,
    })
    expect(first.memo).toBe('[web] order 123 #online')
    expect(again.applications).toEqual([])
    expect(again.memo).toBe(first.memo)
  })

  it('adds a memo piece only where the memo lacks it, so a memo that already ends with it stays', () => {
    const rules = new RuleSet([rule(1, [amzn], { appendMemo: ' #online', prependMemo: '[web] ' })], names)
    expect(rules.classify({ ...row, memo: 'order 123 #online' }).memo).toBe('[web] order 123 #online')
    expect(rules.classify({ ...row, memo: '[web] order 123' }).memo).toBe('[web] order 123 #online')
    expect(rules.classify({ ...row, memo: null }).memo).toBe('[web]  #online')
  })

  it('answers exactly as testing every rule on every row would, whatever the index keys', () => {
    // A deterministic pseudo-random mix of rules and rows; the index must only skip rules that cannot match.
    let seed = 7
    const rand = (n: number) => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31
      return seed % n
    }
    const words = ['amazon', 'amzn', 'shell', 'rewe', 'netflix', 'spotify', 'bakery', 'rent']
    const ids = [id(11), id(12), id(13)]
    const makeCondition = () => {
      switch (rand(8)) {
        case 0:
          return { field: 'payee_name', op: 'contains', value: words[rand(8)]!.slice(0, 2 + rand(4)) }
        case 1:
          return { field: 'memo', op: 'is', value: words[rand(8)]! }
        case 2:
          return { field: 'payee_id', op: 'oneOf', value: [ids[rand(3)]!, ids[rand(3)]!] }
        case 3:
          return { field: 'category_id', op: 'is', value: rand(2) ? null : ids[rand(3)]! }
        case 4:
          return { field: 'outflow', op: 'approx', value: rand(5000) }
        case 5:
          return { field: 'imported_payee', op: 'oneOf', value: [words[rand(8)]!.toUpperCase()] }
        case 6:
          return { field: 'memo', op: 'contains', value: words[rand(8)]! }
        default:
          return { field: 'date', op: 'approx', value: `2026-11-${String(1 + rand(28)).padStart(2, '0')}` }
      }
    }
    const specs: RuleSpec[] = []
    for (let n = 0; n < 120; n++) {
      const conditions = Array.from({ length: 1 + rand(3) }, makeCondition)
      specs.push(
        rule(n, conditions, { setCategoryId: ids[rand(3)]!, appendMemo: '+' }, rand(3) ? 'all' : 'any'),
      )
    }
    const naive = specs.map((s) => compilePredicate(s.predicate))
    const indexed = new RuleSet(specs, new Map())
    for (let r = 0; r < 400; r++) {
      const subject: RuleSubject = {
        ...row,
        payeeId: rand(4) ? ids[rand(3)]! : null,
        payeeName: rand(5) ? `${words[rand(8)]} ${words[rand(8)]}` : null,
        importedPayee: rand(2) ? words[rand(8)]! : null,
        memo: rand(3) ? words[rand(8)]! : null,
        categoryId: rand(2) ? ids[rand(3)]! : null,
        amountCents: rand(10000) - 8000,
        date: `2026-11-${String(1 + rand(28)).padStart(2, '0')}`,
      }
      // Reference answer: every rule tested in order, the same winning rules.
      const expected: string[] = []
      const facts = { ...subject }
      let categoryWon = false
      let memoWon = false
      specs.forEach((s, i) => {
        if (!naive[i]!(prepareFacts(facts))) return
        const changed: string[] = []
        if (!categoryWon) {
          categoryWon = true
          if (facts.categoryId !== s.action.setCategoryId) {
            facts.categoryId = s.action.setCategoryId!
            changed.push('c')
          }
        }
        if (!memoWon) {
          memoWon = true
          if (!(facts.memo ?? '').endsWith('+')) {
            facts.memo = `${facts.memo ?? ''}+`
            changed.push('m')
          }
        }
        if (changed.length > 0) expected.push(`${s.id}:${changed.join('')}`)
      })
      const got = indexed
        .classify(subject)
        .applications.map((a) => `${a.ruleId}:${a.changes.categoryId ? 'c' : ''}${a.changes.memo ? 'm' : ''}`)
      expect(got).toEqual(expected)
    }
  })
})

describe('RuleSet.payeeRename', () => {
  const SHOP = id(7)
  const shopNames = new Map([
    [AMAZON, 'Amazon'],
    [SHOP, 'Shop'],
  ])
  const payeeOf = (rules: RuleSet, subject: RuleSubject) => {
    const renamed = rules.classify(subject).applications.find((a) => a.changes.payeeId)
    return renamed ? { ruleId: renamed.ruleId, change: renamed.changes.payeeId } : null
  }

  it('finds the payee classify sets, through stops and fields earlier rules set, and null without a payee rule', () => {
    const sets = [
      // A stop before the payee rule keeps it from running.
      [
        rule(1, [amzn], { setCategoryId: GROCERIES, stopProcessing: true }),
        rule(2, [amzn], { setPayeeId: AMAZON }),
      ],
      // The payee rule tests a category an earlier rule set.
      [
        rule(1, [amzn], { setCategoryId: DINING }),
        rule(2, [{ field: 'category_id', op: 'is', value: DINING }], { setPayeeId: SHOP }),
        rule(3, [amzn], { setPayeeId: AMAZON }),
      ],
      // The first payee rule wins; a later one tests the payee's new name.
      [
        rule(1, [amzn], { setPayeeId: AMAZON }),
        rule(2, [{ field: 'payee_name', op: 'is', value: 'amazon' }], { setPayeeId: SHOP }),
      ],
      // No rule sets a payee.
      [rule(1, [amzn], { setCategoryId: GROCERIES }), rule(2, [amzn], { appendMemo: '!' })],
    ]
    const answers = sets.map((specs) => {
      const rules = new RuleSet(specs, shopNames)
      expect(rules.payeeRename(row)).toEqual(payeeOf(rules, row))
      return rules.payeeRename(row)?.change?.to ?? null
    })
    expect(answers).toEqual([null, SHOP, AMAZON, null])
    expect(new RuleSet(sets[3]!, shopNames).setsPayees).toBe(false)
    expect(new RuleSet(sets[2]!, shopNames).payeeRename(row, { payeeId: true })).toBeNull()
  })
})
