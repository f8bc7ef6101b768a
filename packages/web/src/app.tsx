import type { Hearth } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'
import { PresenceList } from './components/presence.tsx'
import { RefusedChanges } from './components/refused.tsx'
import { Sidebar } from './components/sidebar.tsx'
import { SyncBadge } from './components/sync-badge.tsx'
import { errorMessage } from './format.ts'
import { navigate, useRoute } from './router.ts'
import { forgetScreens, keepScreensOf } from './screen-cache.ts'
import { AccountsScreen } from './screens/accounts.tsx'
import { BudgetScreen } from './screens/budget.tsx'
import { PayeesScreen } from './screens/payees.tsx'
import { RegisterScreen } from './screens/register.tsx'
import { ReportsScreen } from './screens/reports.tsx'
import { RulesScreen } from './screens/rules.tsx'
import { SignInScreen } from './screens/sign-in.tsx'
import { forgetSession, loadSession, openHearth, type Session, saveSession } from './session.ts'

/**
 * The app: the sign-in until there is a session, then the household's replica opened once and
 * handed to every screen as the `hearth` prop. The shell and the budget paint before it is open,
 * from what they showed last time (`screen-cache.ts`).
 */
export function App() {
  const [session, setSession] = useState<Session | null>(loadSession)
  const [hearth, setHearth] = useState<Hearth | null>(null)
  const [opening, setOpening] = useState<Promise<Hearth> | null>(null)
  const [error, setError] = useState<{ message: string; code: string | null } | null>(null)

  useEffect(() => {
    if (!session) return
    let open: Hearth | null = null
    let cancelled = false
    keepScreensOf(session.store)
    const pending = openHearth(session)
    setOpening(pending)
    pending.then(
      (h) => {
        if (cancelled) void h.close()
        else {
          open = h
          setHearth(h)
          ;(globalThis as { hearth?: Hearth }).hearth = h
        }
      },
      // A HearthError's code (REPLICA_IN_USE: the household is open in another tab) goes on the alert.
      (e) =>
        !cancelled && setError({ message: errorMessage(e), code: (e as { code?: string })?.code ?? null }),
    )
    return () => {
      cancelled = true
      setHearth(null)
      setOpening(null)
      keepScreensOf(null)
      void open?.close()
    }
  }, [session])

  const signIn = (next: Session) => {
    saveSession(next)
    setError(null)
    setSession(next)
    navigate('/budget', true)
  }
  const signOut = () => {
    if (session) forgetScreens(session.store)
    forgetSession()
    setSession(null)
    navigate('', true)
  }

  if (!session) return <SignInScreen onSignedIn={signIn} />
  if (error) {
    return (
      <main class="signin">
        <section class="card signin-card" role="alert" data-code={error.code ?? undefined}>
          <h1>Hearth could not open this household</h1>
          <p>{error.message}</p>
          {error.code === 'REPLICA_IN_USE' ? (
            // Signing out here would take the other tab's session with it.
            <button type="button" class="primary" onClick={() => location.reload()}>
              Try again
            </button>
          ) : (
            <button type="button" class="primary" onClick={signOut}>
              Sign in again
            </button>
          )}
        </section>
      </main>
    )
  }
  if (!opening) return <Opening name={session.householdName} />
  // While the replica opens, the shell paints at once, each screen from what it showed last time
  // (the budget and the sidebar) or a line saying it opens; edits made meanwhile wait for it.
  return <Shell hearth={hearth} opening={opening} session={session} onSignOut={signOut} />
}

function Opening(props: { name: string }) {
  return (
    <main class="loading" aria-busy="true">
      <p>Opening {props.name}…</p>
    </main>
  )
}

/** The routes, each a screen that gets the client as its `hearth` prop. */
export const ROUTES = [
  { path: '/budget', label: 'Budget' },
  { path: '/transactions', label: 'All transactions' },
  { path: '/accounts', label: 'Accounts' },
  { path: '/rules', label: 'Rules' },
  { path: '/payees', label: 'Payees' },
  { path: '/reports', label: 'Reports' },
] as const

function Shell(props: {
  hearth: Hearth | null
  opening: Promise<Hearth>
  session: Session
  onSignOut: () => void
}) {
  const { hearth } = props
  const route = useRoute()
  const [section = 'budget', param] = route

  // Presence: the other members see which screen this device shows (never ledger data).
  useEffect(() => {
    hearth?.presence.set({ screen: section })
  }, [hearth, section])

  // The budget is the same element whether the replica is open yet or not, so what was typed
  // into it meanwhile stays; the other screens wait for the replica.
  const screen = !OTHER_SECTIONS.has(section) ? (
    <BudgetScreen hearth={hearth} opening={props.opening} month={param ?? null} />
  ) : hearth ? (
    <OtherScreen hearth={hearth} section={section} param={param} />
  ) : (
    <p class="loading" aria-busy="true">
      Opening {props.session.householdName}…
    </p>
  )

  return (
    <div class="shell">
      <a class="skip-link" href="#main">
        Skip to content
      </a>
      <header class="topbar">
        <div class="brand">
          <img src={`${import.meta.env.BASE_URL}icon.svg`} alt="" width="28" height="28" />
          <span class="brand-name">Hearth</span>
          <span class="household-label">{props.session.householdName}</span>
        </div>
        <div class="topbar-end">
          {hearth && <PresenceList hearth={hearth} />}
          {hearth ? (
            <SyncBadge hearth={hearth} />
          ) : (
            <output class="sync-badge sync-opening" aria-live="polite" data-state="opening">
              <span class="dot" aria-hidden="true" />
              <span class="sync-label">Opening…</span>
            </output>
          )}
          <button type="button" class="ghost" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      {hearth && <RefusedChanges hearth={hearth} />}
      <div class="body">
        <Sidebar hearth={hearth} route={route} />
        <main id="main" class="content" tabIndex={-1}>
          {screen}
        </main>
      </div>
    </div>
  )
}

/** The sections with screens of their own; any other path shows the budget. */
const OTHER_SECTIONS = new Set(['transactions', 'accounts', 'rules', 'payees', 'reports'])

/** The screen of a section other than the budget, on an open replica. */
function OtherScreen(props: { hearth: Hearth; section: string; param?: string }) {
  const { hearth, section, param } = props
  switch (section) {
    case 'transactions':
      return <RegisterScreen hearth={hearth} accountId={null} />
    case 'accounts':
      return param ? <RegisterScreen hearth={hearth} accountId={param} /> : <AccountsScreen hearth={hearth} />
    case 'rules':
      return <RulesScreen hearth={hearth} />
    case 'payees':
      return <PayeesScreen hearth={hearth} />
    default:
      return <ReportsScreen hearth={hearth} />
  }
}
