import type { Hearth } from '@hearth/client'
import { useState } from 'preact/hooks'
import { HouseholdForm } from '../../components/household-form.tsx'
import { useWatch } from '../../hooks.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { linkTo } from '../../router.ts'
import type { ServerAccess } from '../../server-calls.ts'
import { ApiKeysSettings } from './api-keys.tsx'
import { ExportSettings } from './export.tsx'
import { WebhooksSettings } from './webhooks.tsx'

/** The settings pages, each at /settings/<id>; the household's is the first. */
const PAGES = [
  { id: 'household', label: 'Household' },
  { id: 'keys', label: 'API keys' },
  { id: 'webhooks', label: 'Webhooks' },
  { id: 'export', label: 'Export and backup' },
] as const

/**
 * Settings: the household's name, currency and time zone; your API keys; the household's
 * webhooks; exports and backups; and links to devices and sessions, and to members.
 */
export function SettingsScreen(props: {
  hearth: Hearth
  access: ServerAccess
  householdId: string
  page: string | undefined
}) {
  const page = PAGES.find((p) => p.id === props.page) ?? PAGES[0]
  return (
    <section aria-labelledby="settings-title" class="stack">
      <header class="screen-header">
        <h1 id="settings-title">Settings</h1>
      </header>
      <nav aria-label="Settings" class="sub-nav">
        <ul class="row wrap plain-list">
          {PAGES.map((p) => (
            <li key={p.id}>
              <a
                {...linkTo(`/settings/${p.id}`)}
                class="sub-nav-link"
                aria-current={p.id === page.id ? 'page' : undefined}
              >
                {p.label}
              </a>
            </li>
          ))}
          <li>
            <a {...linkTo('/devices')} class="sub-nav-link">
              Devices and sessions
            </a>
          </li>
          <li>
            <a {...linkTo('/members')} class="sub-nav-link">
              Members
            </a>
          </li>
        </ul>
      </nav>
      {page.id === 'household' && <HouseholdSettings hearth={props.hearth} />}
      {page.id === 'keys' && <ApiKeysSettings access={props.access} />}
      {page.id === 'webhooks' && <WebhooksSettings access={props.access} householdId={props.householdId} />}
      {page.id === 'export' && <ExportSettings hearth={props.hearth} />}
    </section>
  )
}

/** The household's name, currency and time zone, as the replica has them; owners change them. */
function HouseholdSettings(props: { hearth: Hearth }) {
  const household = useWatch(props.hearth, 'households.get', {})
  const [saved, setSaved] = useState(0)
  return (
    <section class="stack" aria-labelledby="household-title">
      <h2 id="household-title">Household</h2>
      <p class="muted">
        Only owners change these. The currency is fixed once the household has a transaction: every amount is
        kept in it.
      </p>
      <ReadGuard hearth={props.hearth} reads={[household]}>
        {() => (
          <HouseholdForm
            key={household.data!.updatedAt}
            hearth={props.hearth}
            household={household.data!}
            saveLabel="Save"
            onSaved={() => setSaved((n) => n + 1)}
          />
        )}
      </ReadGuard>
      {saved > 0 && (
        <p role="status" class="ok">
          Saved.
        </p>
      )}
    </section>
  )
}
