import { type Hearth, STARTER_PACK, starterPackLanguage, ulid } from '@hearth/client'
import { useState } from 'preact/hooks'
import { HouseholdForm } from '../../components/household-form.tsx'
import { NewAccountForm } from '../../components/new-account-form.tsx'
import { errorMessage, formatCents } from '../../format.ts'
import { useWatch } from '../../hooks.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { linkTo } from '../../router.ts'
import type { ServerAccess } from '../../server-calls.ts'
import { InviteForm } from '../members/invite-form.tsx'
import { type DraftGroup, draftOf, packOf } from './category-plan.ts'
import { markSetUp } from './set-up.ts'

const STEPS = [
  { id: 'household', label: 'Your household' },
  { id: 'accounts', label: 'Accounts' },
  { id: 'categories', label: 'Categories' },
  { id: 'partner', label: 'Invite a partner' },
] as const
type StepId = (typeof STEPS)[number]['id'] | 'done'

/**
 * Setting up a new household, one step at a time: its name, currency and time zone; the accounts
 * it has with their balances; a category set (the starter pack, edited, or none); a partner's
 * invitation. Every step can be skipped and done later from its own screen, and none creates
 * anything twice when repeated.
 */
export function OnboardingScreen(props: { hearth: Hearth; access: ServerAccess }) {
  const { hearth } = props
  const [step, setStep] = useState<StepId>('household')
  const index = STEPS.findIndex((s) => s.id === step)
  const next = () => {
    const following = STEPS[index + 1]?.id ?? 'done'
    if (following === 'done') markSetUp(hearth.householdId)
    setStep(following)
  }
  return (
    <section aria-labelledby="onboarding-title" class="onboarding">
      <header class="screen-header">
        <h1 id="onboarding-title">Set up your household</h1>
      </header>
      <ol class="steps" aria-label="Steps">
        {STEPS.map((s, i) => (
          <li key={s.id} aria-current={s.id === step ? 'step' : undefined} class={i < index ? 'done' : ''}>
            {s.label}
          </li>
        ))}
      </ol>
      {step === 'household' && <HouseholdStep hearth={hearth} onNext={next} />}
      {step === 'accounts' && <AccountsStep hearth={hearth} onNext={next} />}
      {step === 'categories' && <CategoriesStep hearth={hearth} onNext={next} />}
      {step === 'partner' && (
        <div class="stack">
          <p>
            Invite the person you share money with. A member sees and changes everything but the household’s
            settings; you can invite more people, or change a role, on the Members screen.
          </p>
          <InviteForm access={props.access} householdId={hearth.householdId} />
          <StepButtons onNext={next} nextLabel="Finish" />
        </div>
      )}
      {step === 'done' && (
        <div class="card stack" role="status">
          <h2 class="card-title">Your household is ready</h2>
          <p>Next, give every dollar a job: assign the money in your accounts to your categories.</p>
          <a class="button primary" {...linkTo('/budget')}>
            Go to the budget
          </a>
        </div>
      )}
    </section>
  )
}

function StepButtons(props: { onNext: () => void; nextLabel?: string }) {
  return (
    <div class="row step-buttons">
      <button type="button" onClick={props.onNext}>
        {props.nextLabel ?? 'Continue'}
      </button>
      <button type="button" class="ghost" onClick={() => props.onNext()}>
        Skip for now
      </button>
    </div>
  )
}

function HouseholdStep(props: { hearth: Hearth; onNext: () => void }) {
  const household = useWatch(props.hearth, 'households.get', {})
  return (
    <ReadGuard hearth={props.hearth} reads={[household]}>
      {() => (
        <HouseholdForm
          hearth={props.hearth}
          household={household.data!}
          saveLabel="Save and continue"
          onSaved={props.onNext}
        >
          <button type="button" class="ghost" onClick={props.onNext}>
            Skip for now
          </button>
        </HouseholdForm>
      )}
    </ReadGuard>
  )
}

function AccountsStep(props: { hearth: Hearth; onNext: () => void }) {
  const accounts = useWatch(props.hearth, 'accounts.list', {})
  return (
    <div class="stack">
      <p>Add the accounts you have, with what each holds today. You can add more later on Accounts.</p>
      <ReadGuard hearth={props.hearth} reads={[accounts]}>
        {() =>
          accounts.data!.items.length > 0 && (
            <ul class="card plain-list" aria-label="Your accounts">
              {accounts.data!.items.map((a) => (
                <li key={a.id} class="row">
                  <span>{a.name}</span>
                  <span class="muted">{a.onBudget ? 'on budget' : 'off budget'}</span>
                  <span class="amount">{formatCents(a.balanceCents, a.currency)}</span>
                </li>
              ))}
            </ul>
          )
        }
      </ReadGuard>
      <NewAccountForm hearth={props.hearth} />
      <StepButtons onNext={props.onNext} />
    </div>
  )
}

function CategoriesStep(props: { hearth: Hearth; onNext: () => void }) {
  const categories = useWatch(props.hearth, 'categories.list', {})
  const household = useWatch(props.hearth, 'households.get', {})
  return (
    <ReadGuard hearth={props.hearth} reads={[categories, household]}>
      {() =>
        categories.data!.items.length > 0 ? (
          <div class="stack">
            <p>Your household has {categories.data!.items.length} categories. Change them on Categories.</p>
            <StepButtons onNext={props.onNext} />
          </div>
        ) : (
          <StarterPackEditor
            hearth={props.hearth}
            language={starterPackLanguage(household.data!.dataLanguage)}
            onNext={props.onNext}
          />
        )
      }
    </ReadGuard>
  )
}

/** The starter pack to edit before it is created: rename anything, tick off what you do not want. */
function StarterPackEditor(props: { hearth: Hearth; language: string; onNext: () => void }) {
  const [draft, setDraft] = useState<DraftGroup[]>(() => draftOf(STARTER_PACK, props.language))
  // One seed for this pack: a second click, or a retry, makes the same rows (and finds them there).
  const [seedId] = useState(ulid)
  const [error, setError] = useState<string | null>(null)
  const setGroup = (i: number, patch: Partial<DraftGroup>) =>
    setDraft(draft.map((g, j) => (j === i ? { ...g, ...patch } : g)))
  const setCategory = (i: number, k: number, patch: Partial<DraftGroup['categories'][number]>) =>
    setGroup(i, { categories: draft[i]!.categories.map((c, j) => (j === k ? { ...c, ...patch } : c)) })
  const create = async () => {
    const groups = packOf(draft)
    if (groups.length === 0) return props.onNext()
    try {
      await props.hearth.mutate.catalog.seedStarterPack({ seedId, groups })
      props.onNext()
    } catch (e) {
      setError(errorMessage(e))
    }
  }
  return (
    <div class="stack">
      <p>
        A starter set of categories, as YNAB suggests. Rename any, untick what you do not need, then create
        them; or start with none and make your own on Categories.
      </p>
      <div class="pack-groups">
        {draft.map((group, i) => (
          <fieldset key={`group-${i}`} class="card pack-group">
            <legend>
              <label class="check">
                <input
                  type="checkbox"
                  checked={group.included}
                  onChange={(e) => setGroup(i, { included: e.currentTarget.checked })}
                  aria-label={`Create the group ${group.name}`}
                />
                <input
                  value={group.name}
                  aria-label={`Group ${i + 1} name`}
                  onInput={(e) => setGroup(i, { name: e.currentTarget.value })}
                />
              </label>
            </legend>
            {group.categories.map((c, k) => (
              <label key={`c-${i}-${k}`} class="check pack-category">
                <input
                  type="checkbox"
                  checked={c.included && group.included}
                  disabled={!group.included}
                  onChange={(e) => setCategory(i, k, { included: e.currentTarget.checked })}
                  aria-label={`Create ${c.name}`}
                />
                <input
                  value={c.name}
                  disabled={!group.included}
                  aria-label={`Rename ${draftOf(STARTER_PACK, props.language)[i]?.categories[k]?.name ?? c.name}`}
                  onInput={(e) => setCategory(i, k, { name: e.currentTarget.value })}
                />
              </label>
            ))}
          </fieldset>
        ))}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <div class="row step-buttons">
        <button type="button" class="primary" onClick={create}>
          Create these categories
        </button>
        <button type="button" class="ghost" onClick={props.onNext}>
          Start with no categories
        </button>
      </div>
    </div>
  )
}
