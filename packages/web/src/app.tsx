import type { Hearth } from '@hearth/client'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { AssistantPanel } from './assistant/assistant-panel.tsx'
import { HouseholdAccess } from './components/activity-list.tsx'
import { HouseholdName } from './components/household-name.tsx'
import { JoinedNotice } from './components/joined-notice.tsx'
import { NotificationBell } from './components/notification-bell.tsx'
import { ownChanges } from './components/own-changes.ts'
import { PresenceList } from './components/presence.tsx'
import { RefusedChanges } from './components/refused.tsx'
import { useScrollableTablesFocusable } from './components/scrollable-tables.ts'
import { Sidebar } from './components/sidebar.tsx'
import { SyncBadge } from './components/sync-badge.tsx'
import { UndoToast } from './components/undo-toast.tsx'
import { errorMessage } from './format.ts'
import { lazyScreen, preloadScreens } from './lazy-screen.tsx'
import { navigate, useRoute } from './router.ts'
import { forgetScreens, keepScreensOf } from './screen-cache.ts'
import { BudgetScreen } from './screens/budget.tsx'
import { forgetPushOnSignOut } from './screens/notifications/push-browser.ts'
import { SetupScreen, SignInScreen, VerifyEmailScreen } from './screens/sign-in.tsx'
import {
  forgetSession,
  loadSession,
  openHearth,
  type Session,
  saveSession,
  signOutOfServer,
} from './session.ts'

/** How long signing out waits for the server to end the session before showing the welcome screen. */
const SIGN_OUT_WAIT_MS = 5_000

// Every screen but the budget (the first paint) is a chunk of its own, fetched when first shown
// and in the background once the household is open.
const AccountsScreen = lazyScreen(() =>
  import('./screens/accounts/accounts.tsx').then((m) => m.AccountsScreen),
)
const ActivityScreen = lazyScreen(() => import('./screens/activity.tsx').then((m) => m.ActivityScreen))
const BankConnectionsScreen = lazyScreen(() =>
  import('./screens/banks/bank-connections.tsx').then((m) => m.BankConnectionsScreen),
)
const BillsScreen = lazyScreen(() => import('./screens/bills/bills.tsx').then((m) => m.BillsScreen))
const CategoriesScreen = lazyScreen(() =>
  import('./screens/categories/categories.tsx').then((m) => m.CategoriesScreen),
)
const DevicesScreen = lazyScreen(() => import('./screens/devices.tsx').then((m) => m.DevicesScreen))
const ForecastsScreen = lazyScreen(() =>
  import('./screens/forecasts/forecasts.tsx').then((m) => m.ForecastsScreen),
)
const ImportsScreen = lazyScreen(() => import('./screens/imports/imports.tsx').then((m) => m.ImportsScreen))
const LoansScreen = lazyScreen(() => import('./screens/loans/loans.tsx').then((m) => m.LoansScreen))
const MembersScreen = lazyScreen(() => import('./screens/members/members.tsx').then((m) => m.MembersScreen))
const NotificationsScreen = lazyScreen(() =>
  import('./screens/notifications/notifications.tsx').then((m) => m.NotificationsScreen),
)
const OnboardingScreen = lazyScreen(() =>
  import('./screens/onboarding/onboarding.tsx').then((m) => m.OnboardingScreen),
)
const PayeesScreen = lazyScreen(() => import('./screens/payees.tsx').then((m) => m.PayeesScreen))
const RegisterScreen = lazyScreen(() => import('./screens/register.tsx').then((m) => m.RegisterScreen))
const ReportsScreen = lazyScreen(() => import('./screens/reports.tsx').then((m) => m.ReportsScreen))
const RulesScreen = lazyScreen(() => import('./screens/rules.tsx').then((m) => m.RulesScreen))
const SettingsScreen = lazyScreen(() =>
  import('./screens/settings/settings.tsx').then((m) => m.SettingsScreen),
)

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
    // The record of own changes starts before anything else sees the replica, so a change made
    // while it opened is one Ctrl/Cmd+Z can take back.
    const pending = openHearth(session).then((h) => {
      ownChanges(h)
      return h
    })
    setOpening(pending)
    pending.then(
      (h) => {
        if (cancelled) void h.close()
        else {
          open = h
          setHearth(h)
          preloadScreens()
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
    const ending = session
    if (session) forgetScreens(session.store)
    forgetSession()
    // The welcome screen comes once the server has ended the session (or could not be reached in
    // a few seconds: offline, the cookie stays until it expires), so a person who sees it is
    // signed out there too, not only in this tab.
    const ended = (async () => {
      if (ending) await forgetPushOnSignOut(ending).catch(() => {})
      await signOutOfServer()
    })()
    void Promise.race([ended, new Promise((resolve) => setTimeout(resolve, SIGN_OUT_WAIT_MS))]).then(() => {
      setSession(null)
      navigate('', true)
    })
  }

  // A setup or reset link (`/app/setup?code=…`) sets a password whoever is signed in here.
  const setupCode = location.pathname.startsWith('/app/setup')
    ? new URLSearchParams(location.search).get('code')
    : null
  if (setupCode) return <SetupScreen code={setupCode} onSignedIn={signIn} />
  // A link mailed to verify an email (`/app/verify-email?code=…`) works signed in or not.
  const verifyCode = location.pathname.startsWith('/app/verify-email')
    ? new URLSearchParams(location.search).get('code')
    : null
  if (verifyCode) return <VerifyEmailScreen code={verifyCode} />
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
  { path: '/categories', label: 'Categories' },
  { path: '/rules', label: 'Rules' },
  { path: '/payees', label: 'Payees' },
  { path: '/imports', label: 'Import' },
  { path: '/reports', label: 'Reports' },
  { path: '/bills', label: 'Bills' },
  { path: '/loans', label: 'Loans' },
  { path: '/forecasts', label: 'Forecasts' },
  { path: '/banks', label: 'Bank connections' },
  { path: '/members', label: 'Members' },
  { path: '/devices', label: 'Devices' },
  { path: '/settings', label: 'Settings' },
  { path: '/activity', label: 'Activity' },
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
  const [assistantOpen, setAssistantOpen] = useState(false)
  const closeAssistant = () => {
    setAssistantOpen(false)
    document.getElementById('assistant-toggle')?.focus()
  }
  // On a narrow screen the sidebar folds behind a menu button; moving to a screen folds it again.
  const [menuOpen, setMenuOpen] = useState(false)
  const path = route.join('/')
  useEffect(() => setMenuOpen(false), [path])
  const mainRef = useRef<HTMLElement>(null)
  useScrollableTablesFocusable(mainRef)

  const household = useMemo(
    () => ({ access: props.session, householdId: props.session.householdId }),
    [props.session],
  )

  // Presence: the other members see which screen this device shows (never ledger data).
  useEffect(() => {
    hearth?.presence.set({ screen: section })
  }, [hearth, section])

  // The budget is the same element whether the replica is open yet or not, so what was typed
  // into it meanwhile stays; members and devices read the server only, so they do not wait for
  // the replica (which takes seconds to open on a new or busy device); the others wait for it.
  const screen = !OTHER_SECTIONS.has(section) ? (
    <BudgetScreen
      hearth={hearth}
      opening={props.opening}
      month={param ?? null}
      householdId={props.session.householdId}
    />
  ) : section === 'members' ? (
    <MembersScreen access={props.session} householdId={props.session.householdId} />
  ) : section === 'devices' ? (
    <DevicesScreen access={props.session} />
  ) : hearth ? (
    <OtherScreen hearth={hearth} section={section} param={param} session={props.session} />
  ) : (
    <p class="loading" aria-busy="true">
      Opening {props.session.householdName}…
    </p>
  )

  return (
    <HouseholdAccess.Provider value={household}>
      <div class="shell">
        <a class="skip-link" href="#main">
          Skip to content
        </a>
        <header class="topbar">
          <button
            type="button"
            class="menu-button ghost"
            aria-expanded={menuOpen}
            aria-controls="main-nav"
            onClick={() => setMenuOpen(!menuOpen)}
          >
            Menu
          </button>
          <div class="brand">
            <img src={`${import.meta.env.BASE_URL}icon.svg`} alt="" width="28" height="28" />
            <span class="brand-name">Hearth</span>
            <HouseholdName hearth={hearth} fallback={props.session.householdName} />
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
            <NotificationBell hearth={hearth} current={section === 'notifications'} />
            <button
              type="button"
              id="assistant-toggle"
              class="ghost"
              aria-expanded={assistantOpen}
              aria-controls="assistant-panel"
              onClick={() => (assistantOpen ? closeAssistant() : setAssistantOpen(true))}
            >
              Assistant
            </button>
            <button type="button" class="ghost" onClick={props.onSignOut}>
              Sign out
            </button>
          </div>
        </header>
        {hearth && <RefusedChanges hearth={hearth} />}
        <JoinedNotice
          access={props.session}
          householdId={props.session.householdId}
          store={props.session.store}
        />
        <div class="body">
          <Sidebar hearth={hearth} route={route} open={menuOpen} />
          <main id="main" class="content" tabIndex={-1} ref={mainRef}>
            {screen}
          </main>
          {assistantOpen && (
            <AssistantPanel
              hearth={hearth}
              access={props.session}
              householdId={props.session.householdId}
              onClose={closeAssistant}
            />
          )}
        </div>
        {hearth && <UndoToast hearth={hearth} />}
      </div>
    </HouseholdAccess.Provider>
  )
}

/** The sections with screens of their own; any other path shows the budget. */
const OTHER_SECTIONS = new Set([
  'transactions',
  'accounts',
  'rules',
  'payees',
  'imports',
  'reports',
  'bills',
  'loans',
  'forecasts',
  'banks',
  'members',
  'devices',
  'settings',
  'welcome',
  'categories',
  'notifications',
  'activity',
])

/** The screen of a section other than the budget, on an open replica. */
function OtherScreen(props: { hearth: Hearth; section: string; param?: string; session: Session }) {
  const { hearth, section, param, session } = props
  switch (section) {
    case 'banks':
      return <BankConnectionsScreen hearth={hearth} access={session} householdId={session.householdId} />
    case 'settings':
      return (
        <SettingsScreen hearth={hearth} access={session} householdId={session.householdId} page={param} />
      )
    case 'welcome':
      return <OnboardingScreen hearth={hearth} access={session} />
    case 'categories':
      return <CategoriesScreen hearth={hearth} />
    case 'activity':
      return <ActivityScreen hearth={hearth} access={session} householdId={session.householdId} />
    case 'transactions':
      return <RegisterScreen hearth={hearth} accountId={null} />
    case 'accounts':
      return param ? <RegisterScreen hearth={hearth} accountId={param} /> : <AccountsScreen hearth={hearth} />
    case 'rules':
      return <RulesScreen hearth={hearth} />
    case 'payees':
      return <PayeesScreen hearth={hearth} />
    case 'imports':
      return <ImportsScreen hearth={hearth} />
    case 'bills':
      return <BillsScreen hearth={hearth} />
    case 'loans':
      return <LoansScreen hearth={hearth} />
    case 'forecasts':
      return <ForecastsScreen hearth={hearth} />
    case 'notifications':
      return <NotificationsScreen hearth={hearth} access={session} />
    default:
      return <ReportsScreen hearth={hearth} />
  }
}
