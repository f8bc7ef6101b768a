import { type Hearth, ulid } from '@hearth/client'
import { useState } from 'preact/hooks'
import { centsToInput, errorMessage, formatCents, parseCents, thisMonth } from '../../format.ts'
import { type QueryResult, useWatch } from '../../hooks.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { reorderedPositions } from './reorder.ts'

type Group = QueryResult<'categoryGroups.list'>['items'][number]
type Category = NonNullable<Group['categories']>[number]
type BudgetMonth = QueryResult<'budgets.get'>

/**
 * Categories and their groups: create, rename, reorder (drag a row, or Alt+Arrow keys on it),
 * hide, delete (moving what the category holds this month first), and each category's goal in
 * place.
 */
export function CategoriesScreen(props: { hearth: Hearth }) {
  const { hearth } = props
  const groups = useWatch(hearth, 'categoryGroups.list', {})
  const budget = useWatch(hearth, 'budgets.get', { month: thisMonth() })
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const run = (work: Promise<unknown>, ok: string) =>
    work.then(
      () => setMessage({ kind: 'ok', text: ok }),
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )
  const [newGroup, setNewGroup] = useState('')

  return (
    <section aria-labelledby="categories-title" class="categories">
      <header class="screen-header">
        <h1 id="categories-title">Categories</h1>
      </header>
      {message && (
        <p
          role={message.kind === 'error' ? 'alert' : 'status'}
          class={message.kind === 'error' ? 'error' : 'ok'}
        >
          {message.text}
        </p>
      )}
      <ReadGuard hearth={hearth} reads={[groups, budget]}>
        {() => (
          <>
            {groups.data!.items.map((g) => (
              <GroupCard
                key={g.id}
                hearth={hearth}
                group={g}
                budget={budget.data!}
                groups={groups.data!.items}
                run={run}
              />
            ))}
            <form
              class="card row"
              aria-label="Add a group"
              onSubmit={(e) => {
                e.preventDefault()
                if (!newGroup.trim()) return
                void run(
                  hearth.mutate.categoryGroups.create({ id: ulid(), name: newGroup.trim() }),
                  'Group added.',
                ).then(() => setNewGroup(''))
              }}
            >
              <label class="grow">
                New group
                <input
                  name="groupName"
                  value={newGroup}
                  onInput={(e) => setNewGroup(e.currentTarget.value)}
                />
              </label>
              <button type="submit">Add group</button>
            </form>
          </>
        )}
      </ReadGuard>
    </section>
  )
}

function GroupCard(props: {
  hearth: Hearth
  group: Group
  groups: readonly Group[]
  budget: BudgetMonth
  run: (work: Promise<unknown>, ok: string) => Promise<void>
}) {
  const { hearth, group: g, run } = props
  const categories = [...(g.categories ?? [])].sort((a, b) => a.position - b.position)
  const [dragging, setDragging] = useState<number | null>(null)
  const [name, setName] = useState(g.name)
  const [newCategory, setNewCategory] = useState('')
  const move = (from: number, to: number) => {
    const items = reorderedPositions(
      categories.map((c) => c.id),
      from,
      to,
    )
    if (items.length > 0) void run(hearth.mutate.categories.reorder({ items }), 'Moved.')
  }
  // What each category holds this month, from the budget, for the delete's question.
  const available = new Map(
    props.budget.groups.flatMap((bg) => bg.categories.map((c) => [c.id, BigInt(c.availableCents)] as const)),
  )
  const others = props.groups
    .flatMap((og) => (og.isIncome ? [] : (og.categories ?? [])))
    .filter((c) => !c.hidden)

  return (
    <section class="card category-group" aria-label={`Group ${g.name}`}>
      <div class="row group-head">
        <form
          class="row grow"
          onSubmit={(e) => {
            e.preventDefault()
            void run(hearth.mutate.categoryGroups.update({ id: g.id, name: name.trim() }), 'Group renamed.')
          }}
        >
          <input
            aria-label={`Name of the group ${g.name}`}
            value={name}
            onInput={(e) => setName(e.currentTarget.value)}
          />
          {name.trim() !== g.name && <button type="submit">Rename</button>}
        </form>
        {g.isIncome && <span class="pill">income</span>}
        <label class="check">
          <input
            type="checkbox"
            checked={g.hidden}
            onChange={(e) =>
              run(
                hearth.mutate.categoryGroups.update({ id: g.id, hidden: e.currentTarget.checked }),
                'Saved.',
              )
            }
          />
          Hidden
        </label>
        <button
          type="button"
          class="small danger ghost"
          onClick={() =>
            confirm(
              `Delete the group ${g.name} and its ${categories.length} categories? Their transactions keep them, marked deleted.`,
            ) && run(hearth.mutate.categoryGroups.delete({ id: g.id }), `${g.name} deleted.`)
          }
        >
          Delete group
        </button>
      </div>
      <ul class="category-list" aria-label={`Categories of ${g.name}`}>
        {categories.map((c, i) => (
          <li
            key={c.id}
            draggable
            class={`category-item ${dragging === i ? 'dragging' : ''}`}
            onDragStart={() => setDragging(i)}
            onDragOver={(e) => e.preventDefault()}
            onDrop={(e) => {
              e.preventDefault()
              if (dragging !== null) move(dragging, i)
              setDragging(null)
            }}
            onDragEnd={() => setDragging(null)}
          >
            <button
              type="button"
              class="ghost small drag-handle"
              aria-label={`Move ${c.name} (${i + 1} of ${categories.length}): arrow up or down`}
              onKeyDown={(e) => {
                if (e.key === 'ArrowUp' || e.key === 'ArrowDown') {
                  e.preventDefault()
                  move(i, e.key === 'ArrowUp' ? i - 1 : i + 1)
                }
              }}
            >
              ⠿
            </button>
            <CategoryRow
              hearth={hearth}
              category={c}
              available={available.get(c.id) ?? 0n}
              currency={props.budget.currency}
              others={others.filter((o) => o.id !== c.id)}
              income={g.isIncome}
              run={run}
            />
          </li>
        ))}
      </ul>
      <form
        class="row"
        aria-label={`Add a category to ${g.name}`}
        onSubmit={(e) => {
          e.preventDefault()
          if (!newCategory.trim()) return
          void run(
            hearth.mutate.categories.create({ id: ulid(), groupId: g.id, name: newCategory.trim() }),
            'Category added.',
          ).then(() => setNewCategory(''))
        }}
      >
        <label class="grow">
          New category in {g.name}
          <input value={newCategory} onInput={(e) => setNewCategory(e.currentTarget.value)} />
        </label>
        <button type="submit">Add</button>
      </form>
    </section>
  )
}

function CategoryRow(props: {
  hearth: Hearth
  category: Category
  available: bigint
  currency: string
  others: readonly Category[]
  income: boolean
  run: (work: Promise<unknown>, ok: string) => Promise<void>
}) {
  const { hearth, category: c, run } = props
  const [name, setName] = useState(c.name)
  const [deleting, setDeleting] = useState(false)
  const [moveTo, setMoveTo] = useState('')
  const goal = c.goal as { type: string; amountCents?: string; targetCents?: string } | null
  const [goalType, setGoalType] = useState(
    goal?.type === 'targetBalance' ? 'targetBalance' : goal ? 'monthly' : 'none',
  )
  const [goalAmount, setGoalAmount] = useState(
    goal ? centsToInput(goal.amountCents ?? goal.targetCents ?? '0') : '',
  )
  const saveGoal = () => {
    if (goalType === 'none')
      return run(hearth.mutate.categories.update({ id: c.id, goal: null }), 'Goal removed.')
    const cents = parseCents(goalAmount)
    if (cents === null || cents <= 0n)
      return run(Promise.reject(new Error('A goal needs an amount above zero.')), '')
    const next =
      goalType === 'monthly'
        ? { type: 'monthly' as const, amountCents: cents.toString() }
        : { type: 'targetBalance' as const, targetCents: cents.toString() }
    return run(hearth.mutate.categories.update({ id: c.id, goal: next }), 'Goal saved.')
  }
  // One mutation moves what the category holds this month (or covers what it overspent) and
  // deletes it, in one transaction; without a category to move to, it is simply deleted.
  const remove = () =>
    props.available !== 0n && moveTo
      ? hearth.mutate.budgets.deleteCategory({
          month: thisMonth(),
          categoryId: c.id,
          moveToCategoryId: moveTo,
        })
      : hearth.mutate.categories.delete({ id: c.id })

  return (
    <div class="category-fields row grow">
      <form
        class="row grow"
        onSubmit={(e) => {
          e.preventDefault()
          void run(hearth.mutate.categories.update({ id: c.id, name: name.trim() }), 'Renamed.')
        }}
      >
        <input
          aria-label={`Name of ${c.name}`}
          value={name}
          onInput={(e) => setName(e.currentTarget.value)}
        />
        {name.trim() !== c.name && <button type="submit">Rename</button>}
      </form>
      {!props.income && (
        <span class="row goal-in-place">
          <select
            aria-label={`Goal of ${c.name}`}
            value={goalType}
            onChange={(e) => setGoalType(e.currentTarget.value)}
          >
            <option value="none">No goal</option>
            <option value="monthly">Assign every month</option>
            <option value="targetBalance">Reach a balance</option>
          </select>
          {goalType !== 'none' && (
            <input
              class="amount-field"
              aria-label={`Goal amount of ${c.name}`}
              inputMode="decimal"
              value={goalAmount}
              onInput={(e) => setGoalAmount(e.currentTarget.value)}
            />
          )}
          <button type="button" class="small" onClick={saveGoal} aria-label={`Save goal of ${c.name}`}>
            Save goal
          </button>
        </span>
      )}
      <label class="check">
        <input
          type="checkbox"
          checked={c.hidden}
          onChange={(e) =>
            run(hearth.mutate.categories.update({ id: c.id, hidden: e.currentTarget.checked }), 'Saved.')
          }
        />
        Hidden
      </label>
      {deleting ? (
        <fieldset class="row delete-category">
          <legend class="visually-hidden">Delete {c.name}</legend>
          <span class="small-print">
            {props.available === 0n
              ? 'It holds nothing this month.'
              : `It holds ${formatCents(props.available.toString(), props.currency)} this month.`}{' '}
            Its transactions keep it, marked deleted.
          </span>
          {props.available !== 0n && (
            <select
              aria-label={`Move what ${c.name} holds to`}
              value={moveTo}
              onChange={(e) => setMoveTo(e.currentTarget.value)}
            >
              <option value="">Leave it (it stays out of Ready to Assign)</option>
              {props.others
                .filter((o) => o.id !== c.id)
                .map((o) => (
                  <option key={o.id} value={o.id}>
                    Move it to {o.name}
                  </option>
                ))}
            </select>
          )}
          <button type="button" class="small danger" onClick={() => run(remove(), `${c.name} deleted.`)}>
            Delete
          </button>
          <button type="button" class="small ghost" onClick={() => setDeleting(false)}>
            Keep it
          </button>
        </fieldset>
      ) : (
        <button
          type="button"
          class="small danger ghost"
          aria-label={`Delete ${c.name}`}
          onClick={() => setDeleting(true)}
        >
          Delete
        </button>
      )}
    </div>
  )
}
