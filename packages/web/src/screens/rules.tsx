import type { Hearth } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'
import { errorMessage, formatCents, formatDate } from '../format.ts'
import { type QueryResult, useWatch } from '../hooks.ts'
import { type Lookups, useLookups } from '../lookups.ts'
import { ReadGuard, ReadMessage } from '../reads/read-guard.tsx'
import { readProblem } from '../reads/read-problem.ts'
import { CategorySelect } from './register.tsx'

type Rule = QueryResult<'rules.list'>['items'][number]

const FIELDS = { payee_name: 'Payee', memo: 'Memo', imported_payee: 'Bank’s payee text' } as const
const OPS = { is: 'is', contains: 'contains', doesNotContain: 'does not contain' } as const

/**
 * Rules: the list in the order they run, a new rule (from a transaction: `?from=<id>` fills it in),
 * a preview of what a rule would change, and applying it to the rows it matches.
 */
export function RulesScreen(props: { hearth: Hearth }) {
  const { hearth } = props
  const lookups = useLookups(hearth)
  const rules = useWatch(hearth, 'rules.list', {})
  const { data } = rules
  const from = new URLSearchParams(location.search).get('from')
  const [previewing, setPreviewing] = useState<string | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const act = (work: Promise<unknown>) =>
    work.then(
      () => setProblem(null),
      (e) => setProblem(errorMessage(e)),
    )

  return (
    <section aria-labelledby="rules-title">
      <header class="screen-header">
        <h1 id="rules-title">Rules</h1>
      </header>
      <ReadGuard
        hearth={hearth}
        reads={[rules, lookups.reads.payees, lookups.reads.categories, lookups.reads.groups]}
      >
        {() => (
          <>
            <NewRule hearth={hearth} lookups={lookups} fromTransaction={from} onCreated={setPreviewing} />
            {problem && (
              <p role="alert" class="error">
                {problem}
              </p>
            )}
            <div class="card">
              <h2 class="card-title">Your rules, in the order they run</h2>
              {data && data.items.length === 0 && <p class="muted">No rules yet.</p>}
              {data && data.items.length > 0 && (
                <table class="table">
                  <thead>
                    <tr>
                      <th scope="col">Rule</th>
                      <th scope="col">When</th>
                      <th scope="col">Then</th>
                      <th scope="col">On</th>
                      <th scope="col">
                        <span class="visually-hidden">Actions</span>
                      </th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.items.map((r) => (
                      <tr key={r.id} class={previewing === r.id ? 'selected' : ''}>
                        <td>
                          {r.name}
                          {r.learned && <span class="pill">learned</span>}
                        </td>
                        <td>{describeWhen(r, lookups)}</td>
                        <td>{describeThen(r, lookups)}</td>
                        <td>
                          <input
                            type="checkbox"
                            aria-label={`${r.name} enabled`}
                            checked={r.enabled}
                            onChange={(e) =>
                              act(hearth.mutate.rules.update({ id: r.id, enabled: e.currentTarget.checked }))
                            }
                          />
                        </td>
                        <td class="actions">
                          <button
                            type="button"
                            class="small"
                            onClick={() => setPreviewing(previewing === r.id ? null : r.id)}
                          >
                            Preview
                          </button>
                          <button
                            type="button"
                            class="small"
                            onClick={() => act(hearth.mutate.rules.apply({ id: r.id }))}
                          >
                            Apply
                          </button>
                          <button
                            type="button"
                            class="small ghost danger"
                            aria-label={`Delete ${r.name}`}
                            onClick={() => act(hearth.mutate.rules.delete({ id: r.id }))}
                          >
                            Delete
                          </button>
                        </td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              )}
            </div>
            {previewing && <RulePreview hearth={hearth} id={previewing} lookups={lookups} />}
          </>
        )}
      </ReadGuard>
    </section>
  )
}

function describeWhen(rule: Rule, lookups: Lookups): string {
  const parts = rule.predicate.conditions.map((c) => {
    const field = FIELDS[c.field as keyof typeof FIELDS] ?? c.field.replace('_', ' ')
    const value =
      c.field === 'category_id'
        ? lookups.categoryName.get(String(c.value))
        : c.field === 'payee_id'
          ? lookups.payeeName.get(String(c.value))
          : typeof c.value === 'string'
            ? `“${c.value}”`
            : JSON.stringify(c.value)
    return `${field} ${OPS[c.op as keyof typeof OPS] ?? c.op} ${value ?? ''}`
  })
  return parts.join(rule.predicate.combinator === 'all' ? ' and ' : ' or ') || 'Always'
}

function describeThen(rule: Rule, lookups: Lookups): string {
  const a = rule.action
  const parts: string[] = []
  if (a.setCategoryId) parts.push(`category ${lookups.categoryName.get(a.setCategoryId) ?? '?'}`)
  if (a.setPayeeId) parts.push(`payee ${lookups.payeeName.get(a.setPayeeId) ?? '?'}`)
  if (a.appendMemo) parts.push(`memo + “${a.appendMemo}”`)
  if (a.prependMemo) parts.push(`“${a.prependMemo}” + memo`)
  if (a.addTagIds?.length) parts.push(`tags ${a.addTagIds.map((id) => lookups.tagName.get(id)).join(', ')}`)
  if (a.stopProcessing) parts.push('stop')
  return parts.join(' · ') || 'Nothing'
}

function NewRule(props: {
  hearth: Hearth
  lookups: Lookups
  fromTransaction: string | null
  onCreated: (id: string) => void
}) {
  const { hearth, lookups } = props
  const [name, setName] = useState('')
  const [field, setField] = useState<keyof typeof FIELDS>('payee_name')
  const [op, setOp] = useState<keyof typeof OPS>('contains')
  const [value, setValue] = useState('')
  const [categoryId, setCategoryId] = useState('')
  const [error, setError] = useState<string | null>(null)

  // A rule from a transaction: its payee (or memo) and its category.
  useEffect(() => {
    if (!props.fromTransaction || !lookups.ready) return
    hearth.query.transactions.get({ id: props.fromTransaction }).then(
      (t) => {
        const payee = t.payeeId ? lookups.payeeName.get(t.payeeId) : null
        if (payee) {
          setField('payee_name')
          setOp('is')
          setValue(payee)
        } else if (t.memo) {
          setField('memo')
          setOp('contains')
          setValue(t.memo)
        }
        setCategoryId(t.categoryId ?? t.suggestedCategoryId ?? '')
        setName(payee ? `${payee}` : (t.memo ?? ''))
      },
      (e) => setError(errorMessage(e)),
    )
  }, [props.fromTransaction, lookups.ready])

  const save = async (event: Event) => {
    event.preventDefault()
    if (!value.trim() || !categoryId) return setError('Say what to match and which category to set.')
    try {
      const rule = await hearth.mutate.rules.create({
        name: name.trim() || value.trim(),
        predicate: { combinator: 'all', conditions: [{ field, op, value: value.trim() }] },
        action: { setCategoryId: categoryId },
      })
      setError(null)
      setName('')
      setValue('')
      props.onCreated(rule.id)
    } catch (e) {
      setError(errorMessage(e))
    }
  }

  return (
    <form class="card" onSubmit={save} aria-labelledby="new-rule-title">
      <h2 id="new-rule-title" class="card-title">
        {props.fromTransaction ? 'New rule from a transaction' : 'New rule'}
      </h2>
      <div class="editor-fields">
        <label class="grow">
          Name
          <input name="ruleName" value={name} onInput={(e) => setName(e.currentTarget.value)} />
        </label>
        <label>
          When
          <select
            name="field"
            value={field}
            onChange={(e) => setField(e.currentTarget.value as keyof typeof FIELDS)}
          >
            {Object.entries(FIELDS).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <label>
          Test
          <select name="op" value={op} onChange={(e) => setOp(e.currentTarget.value as keyof typeof OPS)}>
            {Object.entries(OPS).map(([k, v]) => (
              <option key={k} value={k}>
                {v}
              </option>
            ))}
          </select>
        </label>
        <label class="grow">
          Text
          <input name="value" value={value} onInput={(e) => setValue(e.currentTarget.value)} />
        </label>
        {/* biome-ignore lint/a11y/noLabelWithoutControl: CategorySelect renders the select. */}
        <label class="grow">
          Set category
          <CategorySelect
            label="Set category"
            lookups={lookups}
            value={categoryId}
            onChange={setCategoryId}
          />
        </label>
        <button type="submit" class="primary">
          Create rule
        </button>
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  )
}

function RulePreview(props: { hearth: Hearth; id: string; lookups: Lookups }) {
  const preview = useWatch(props.hearth, 'rules.preview', { id: props.id })
  const { data } = preview
  const transactionsRead = useWatch(props.hearth, 'transactions.list', { limit: 100 })
  const transactions = transactionsRead.data
  const problem = readProblem([preview, transactionsRead], null)
  const byId = new Map((transactions?.items ?? []).map((t) => [t.id, t]))
  return (
    <section class="card" aria-labelledby="preview-title">
      <h2 id="preview-title" class="card-title">
        Preview
      </h2>
      {problem && <ReadMessage problem={problem} />}
      {!problem && data && (
        <>
          <p class="muted" data-testid="preview-count">
            Would change {data.changedCount} of {data.examinedCount} transactions.
          </p>
          <ul class="preview-list">
            {data.items.map((item) => {
              const t = byId.get(item.transactionId)
              const change = item.applications[0]?.changes.categoryId
              return (
                <li key={item.transactionId}>
                  {t
                    ? `${formatDate(t.date)} · ${t.payeeId ? props.lookups.payeeName.get(t.payeeId) : ''} · ${formatCents(t.amountCents)}`
                    : item.transactionId}
                  {change && (
                    <span class="muted">
                      {' '}
                      {change.from ? props.lookups.categoryName.get(change.from) : 'Uncategorized'} →{' '}
                      {change.to ? props.lookups.categoryName.get(change.to) : 'Uncategorized'}
                    </span>
                  )}
                </li>
              )
            })}
          </ul>
        </>
      )}
    </section>
  )
}
