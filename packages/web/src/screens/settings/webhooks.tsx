import { EVENT_TYPES, ulid } from '@hearth/client'
import { useState } from 'preact/hooks'
import { ShownOnce } from '../../components/shown-once.tsx'
import { errorMessage } from '../../format.ts'
import { ReadGuard } from '../../reads/read-guard.tsx'
import { type ServerAccess, serverCall } from '../../server-calls.ts'
import { useServerRead } from '../../server-read.ts'

/** A subscription as the server lists it: never its secret. */
interface Subscription {
  id: string
  url: string
  eventTypes: string[]
  status: 'active' | 'paused' | 'disabled'
  disabledReason: string | null
  previousSecretExpiresAt: string | null
}

/** One entry of a subscription's delivery log. */
interface Delivery {
  id: string
  eventId: string
  eventType: string
  status: 'pending' | 'succeeded' | 'failed'
  attempts: number
  lastAttemptAt: string | null
  responseStatus: number | null
  error: string | null
  createdAt: string
}

const STATUS_WORDS: Record<Subscription['status'], string> = {
  active: 'Active',
  paused: 'Paused',
  disabled: 'Disabled',
}

/** A secret the server just answered, for which subscription. */
type Revealed = { subscriptionId: string; secret: string; rotated: boolean }

/**
 * The household's webhooks: endpoints that receive its events as signed POSTs. Add one (its
 * signing secret is shown once), change its URL, events or status, delete it, read its delivery
 * log and retry a delivery, rotate its secret (the new one shown once), and send a test. Only the
 * server holds webhooks, so each is a REST call, read again after it.
 */
export function WebhooksSettings(props: { access: ServerAccess; householdId: string }) {
  const { access } = props
  const base = `/households/${props.householdId}/webhooks/subscriptions`
  const subscriptions = useServerRead(
    () => serverCall<{ items: Subscription[] }>(access, 'GET', base),
    [access, base],
  )
  const [revealed, setRevealed] = useState<Revealed | null>(null)
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const act = (work: Promise<unknown>, ok: string) =>
    work.then(
      () => {
        setMessage({ kind: 'ok', text: ok })
        subscriptions.reload()
      },
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )
  return (
    <section class="stack" aria-labelledby="webhooks-title">
      <h2 id="webhooks-title">Webhooks</h2>
      <p class="muted">
        A webhook sends the household’s events (a new transaction, an overspent category…) to another system
        as they happen, signed with a secret that system checks.
      </p>
      {message && (
        <p role={message.kind === 'error' ? 'alert' : 'status'} class={message.kind}>
          {message.text}
        </p>
      )}
      <ReadGuard hearth={null} reads={[subscriptions]}>
        {() => (
          <>
            <SubscriptionForm
              access={access}
              base={base}
              onSaved={(made) => {
                setRevealed({ subscriptionId: made.id, secret: made.secret!, rotated: false })
                setMessage(null)
                subscriptions.reload()
              }}
            />
            {revealed && !revealed.rotated && (
              <ShownOnce label="Signing secret" secret={revealed.secret}>
                The new webhook’s signing secret. Give it to the receiving system now: Hearth does not show it
                again (rotate it for a new one).
              </ShownOnce>
            )}
            {subscriptions.data!.items.length === 0 ? (
              <p class="muted">The household has no webhooks yet.</p>
            ) : (
              subscriptions.data!.items.map((s) => (
                <SubscriptionCard
                  key={s.id}
                  access={access}
                  base={base}
                  subscription={s}
                  act={act}
                  revealed={revealed?.subscriptionId === s.id && revealed.rotated ? revealed.secret : null}
                  onRotated={(secret) => setRevealed({ subscriptionId: s.id, secret, rotated: true })}
                  onChanged={() => subscriptions.reload()}
                />
              ))
            )}
          </>
        )}
      </ReadGuard>
    </section>
  )
}

/** Adds a subscription, or (with `editing`) changes one's URL and events. */
function SubscriptionForm(props: {
  access: ServerAccess
  base: string
  editing?: Subscription
  onSaved: (answer: Subscription & { secret?: string }) => void
  onCancel?: () => void
}) {
  const { editing } = props
  const [url, setUrl] = useState(editing?.url ?? '')
  const [every, setEvery] = useState(editing ? editing.eventTypes.includes('*') : true)
  const [types, setTypes] = useState<string[]>(editing?.eventTypes.filter((t) => t !== '*') ?? [])
  const [idempotencyKey, setIdempotencyKey] = useState(ulid)
  const [busy, setBusy] = useState(false)
  const [error, setError] = useState<string | null>(null)
  const label = editing ? `Change the webhook to ${editing.url}` : 'Add a webhook'
  const submit = async (event: Event) => {
    event.preventDefault()
    if (busy) return
    const eventTypes = every ? ['*'] : types
    if (eventTypes.length === 0) return setError('Choose the events it receives, or every event.')
    setBusy(true)
    try {
      const body = { url: url.trim(), eventTypes }
      const answer = editing
        ? await serverCall<Subscription>(props.access, 'PATCH', `${props.base}/${editing.id}`, { body })
        : await serverCall<Subscription & { secret: string }>(props.access, 'POST', props.base, {
            body,
            idempotencyKey,
          })
      setError(null)
      if (!editing) {
        setUrl('')
        setTypes([])
        setEvery(true)
        setIdempotencyKey(ulid())
      }
      props.onSaved(answer)
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }
  const id = editing?.id ?? 'new'
  return (
    <form class="card stack" onSubmit={submit} aria-label={label}>
      {!editing && <h3 class="card-title">Add a webhook</h3>}
      <label>
        Receiver URL
        <input
          type="url"
          name="url"
          required
          placeholder="https://example.com/hearth"
          value={url}
          onInput={(e) => setUrl(e.currentTarget.value)}
        />
      </label>
      <label class="check">
        <input type="checkbox" checked={every} onChange={(e) => setEvery(e.currentTarget.checked)} />
        Every event, present and future
      </label>
      {!every && (
        <label>
          Events
          <select
            multiple
            size={8}
            id={`events-${id}`}
            onChange={(e) => setTypes([...e.currentTarget.selectedOptions].map((o) => o.value))}
          >
            {EVENT_TYPES.map((t) => (
              <option key={t} value={t} selected={types.includes(t)}>
                {t}
              </option>
            ))}
          </select>
        </label>
      )}
      <div class="row">
        <button type="submit" class="primary" disabled={busy}>
          {editing ? 'Save changes' : 'Add webhook'}
        </button>
        {props.onCancel && (
          <button type="button" class="ghost" onClick={props.onCancel}>
            Cancel
          </button>
        )}
      </div>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
    </form>
  )
}

/** One subscription: what it receives, its status, its actions, and its delivery log on demand. */
function SubscriptionCard(props: {
  access: ServerAccess
  base: string
  subscription: Subscription
  act: (work: Promise<unknown>, ok: string) => Promise<void>
  revealed: string | null
  onRotated: (secret: string) => void
  onChanged: () => void
}) {
  const { access, subscription: s, act } = props
  const one = `${props.base}/${s.id}`
  const [editing, setEditing] = useState(false)
  const [showLog, setShowLog] = useState(false)
  const [logRound, setLogRound] = useState(0)
  const rotate = () => {
    if (!confirm('Rotate the signing secret? The old one keeps signing too for 24 hours.')) return
    void act(
      serverCall<{ secret: string }>(access, 'POST', `${one}/rotate-secret`, { idempotencyKey: ulid() }).then(
        (answer) => props.onRotated(answer.secret),
      ),
      'The secret was rotated; the old one also signs for 24 hours.',
    )
  }
  return (
    <section class="card stack" data-webhook={s.url} aria-label={`Webhook to ${s.url}`}>
      <header class="panel-header">
        <h3 class="card-title webhook-url">{s.url}</h3>
        <label>
          Status
          <select
            value={s.status}
            onChange={(e) =>
              act(
                serverCall(access, 'PATCH', one, { body: { status: e.currentTarget.value } }),
                `The webhook is ${STATUS_WORDS[e.currentTarget.value as Subscription['status']].toLowerCase()}.`,
              )
            }
          >
            {(['active', 'paused', 'disabled'] as const).map((st) => (
              <option key={st} value={st}>
                {STATUS_WORDS[st]}
              </option>
            ))}
          </select>
        </label>
      </header>
      <p>
        Receives: {s.eventTypes.includes('*') ? 'every event' : s.eventTypes.join(', ')}
        {s.disabledReason && <span class="error"> · {s.disabledReason}</span>}
      </p>
      {editing ? (
        <SubscriptionForm
          access={access}
          base={props.base}
          editing={s}
          onSaved={() => {
            setEditing(false)
            props.onChanged()
          }}
          onCancel={() => setEditing(false)}
        />
      ) : (
        <div class="row wrap">
          <button type="button" class="small" onClick={() => setEditing(true)}>
            Edit
          </button>
          <button
            type="button"
            class="small"
            onClick={() =>
              act(
                serverCall(access, 'POST', `${one}/test`).then(() => setLogRound((r) => r + 1)),
                'A test event is on its way; its delivery shows in the log.',
              )
            }
          >
            Send a test
          </button>
          <button type="button" class="small" onClick={rotate}>
            Rotate secret
          </button>
          <button type="button" class="small" aria-expanded={showLog} onClick={() => setShowLog(!showLog)}>
            {showLog ? 'Hide deliveries' : 'Show deliveries'}
          </button>
          <button
            type="button"
            class="small danger ghost"
            onClick={() =>
              confirm(`Delete the webhook to ${s.url}? Its delivery log goes with it.`) &&
              act(serverCall(access, 'DELETE', one), `Deleted the webhook to ${s.url}.`)
            }
          >
            Delete
          </button>
        </div>
      )}
      {props.revealed && (
        <ShownOnce label="Signing secret" secret={props.revealed}>
          The new signing secret. Give it to the receiving system now: Hearth does not show it again.
        </ShownOnce>
      )}
      {showLog && <DeliveryLog access={access} one={one} round={logRound} />}
    </section>
  )
}

/** The newest deliveries of a subscription, each with what its receiver answered, and retry. */
function DeliveryLog(props: { access: ServerAccess; one: string; round: number }) {
  const { access, one } = props
  const log = useServerRead(
    () => serverCall<{ items: Delivery[] }>(access, 'GET', `${one}/deliveries?limit=20`),
    [access, one, props.round],
  )
  const [message, setMessage] = useState<{ kind: 'ok' | 'error'; text: string } | null>(null)
  const retry = (d: Delivery) =>
    serverCall(access, 'POST', `${one}/deliveries/${d.id}/retry`).then(
      () => {
        setMessage({ kind: 'ok', text: `The ${d.eventType} delivery is queued again.` })
        log.reload()
      },
      (e) => setMessage({ kind: 'error', text: errorMessage(e) }),
    )
  return (
    <div class="stack">
      <div class="row">
        <h4 class="card-title">Deliveries</h4>
        <button type="button" class="small ghost" onClick={log.reload}>
          Refresh
        </button>
      </div>
      {message && (
        <p role={message.kind === 'error' ? 'alert' : 'status'} class={message.kind}>
          {message.text}
        </p>
      )}
      <ReadGuard hearth={null} reads={[log]}>
        {() =>
          log.data!.items.length === 0 ? (
            <p class="muted">Nothing was sent to it yet.</p>
          ) : (
            <div class="table-scroll">
              <table class="table" data-table="deliveries">
                <thead>
                  <tr>
                    <th scope="col">Event</th>
                    <th scope="col">Status</th>
                    <th scope="col">Attempts</th>
                    <th scope="col">Last answer</th>
                    <th scope="col">
                      <span class="visually-hidden">Actions</span>
                    </th>
                  </tr>
                </thead>
                <tbody>
                  {log.data!.items.map((d) => (
                    <tr key={d.id} data-delivery={d.id} data-status={d.status} data-event-type={d.eventType}>
                      <td>{d.eventType}</td>
                      <td>{d.status}</td>
                      <td class="num">{d.attempts}</td>
                      <td>
                        {d.responseStatus !== null ? `HTTP ${d.responseStatus}` : (d.error ?? '—')}
                        {d.lastAttemptAt && (
                          <div class="muted">{new Date(d.lastAttemptAt).toLocaleString()}</div>
                        )}
                      </td>
                      <td>
                        <button
                          type="button"
                          class="small ghost"
                          aria-label={`Retry the ${d.eventType} delivery`}
                          onClick={() => retry(d)}
                        >
                          Retry
                        </button>
                      </td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          )
        }
      </ReadGuard>
    </div>
  )
}
