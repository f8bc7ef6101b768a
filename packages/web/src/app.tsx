import type { Hearth } from '@hearth/client'
import { useEffect, useState } from 'preact/hooks'
import { PresenceList } from './components/presence.tsx'
import { RefusedChanges } from './components/refused.tsx'
import { Sidebar } from './components/sidebar.tsx'
import { SyncBadge } from './components/sync-badge.tsx'
import { errorMessage } from './format.ts'
import { navigate, useRoute } from './router.ts'
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
 * handed to every screen as the `hearth` prop.
 */
export function App() {
  const [session, setSession] = useState<Session | null>(loadSession)
  const [hearth, setHearth] = useState<Hearth | null>(null)
  const [error, setError] = useState<{ message: string; code: string | null } | null>(null)

  useEffect(() => {
    if (!session) return
    let open: Hearth | null = null
    let cancelled = false
    openHearth(session).then(
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
  if (!hearth) {
    return (
      <main class="loading" aria-busy="true">
        <p>Opening {session.householdName}…</p>
      </main>
    )
  }
  return <Shell hearth={hearth} session={session} onSignOut={signOut} />
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

function Shell(props: { hearth: Hearth; session: Session; onSignOut: () => void }) {
  const { hearth } = props
  const route = useRoute()
  const [section = 'budget', param] = route

  // Presence: the other members see which screen this device shows (never ledger data).
  useEffect(() => {
    hearth.presence.set({ screen: section })
  }, [hearth, section])

  let screen: preact.JSX.Element
  switch (section) {
    case 'transactions':
      screen = <RegisterScreen hearth={hearth} accountId={null} />
      break
    case 'accounts':
      screen = param ? (
        <RegisterScreen hearth={hearth} accountId={param} />
      ) : (
        <AccountsScreen hearth={hearth} />
      )
      break
    case 'rules':
      screen = <RulesScreen hearth={hearth} />
      break
    case 'payees':
      screen = <PayeesScreen hearth={hearth} />
      break
    case 'reports':
      screen = <ReportsScreen hearth={hearth} />
      break
    default:
      screen = <BudgetScreen hearth={hearth} month={param ?? null} />
  }

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
          <PresenceList hearth={hearth} />
          <SyncBadge hearth={hearth} />
          <button type="button" class="ghost" onClick={props.onSignOut}>
            Sign out
          </button>
        </div>
      </header>
      <RefusedChanges hearth={hearth} />
      <div class="body">
        <Sidebar hearth={hearth} route={route} />
        <main id="main" class="content" tabIndex={-1}>
          {screen}
        </main>
      </div>
    </div>
  )
}
