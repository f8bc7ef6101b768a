import { useState } from 'preact/hooks'
import { errorMessage } from '../format.ts'
import { type ServerAccess, serverCall } from '../server-calls.ts'

/**
 * The `ai_processing` consent, asked before the first question in a household: what the assistant
 * reads and keeps, and what leaves the server (docs/api/assistant.md, Consent).
 */
export function ConsentStep(props: { access: ServerAccess; householdId: string; onGranted: () => void }) {
  const [error, setError] = useState<string | null>(null)
  const [busy, setBusy] = useState(false)
  const grant = async () => {
    setBusy(true)
    setError(null)
    try {
      await serverCall(props.access, 'POST', `/households/${props.householdId}/ai/consent`)
      props.onGranted()
    } catch (e) {
      setError(errorMessage(e))
    } finally {
      setBusy(false)
    }
  }
  return (
    <section class="consent-step" aria-labelledby="consent-title" data-consent="required">
      <h3 id="consent-title">Before you ask</h3>
      <p>
        To answer, the assistant reads this household’s accounts, transactions, categories, payees, tags,
        budgets and rules that your sign-in may read, and keeps your conversations on the server until you
        delete them.
      </p>
      <p>
        With the built-in assistant nothing leaves the server. If the server uses a remote model, each
        question sends it your message, the conversation so far and the figures it looks up.
      </p>
      <p class="muted">
        It never changes anything by itself: each change it proposes waits for you to confirm.
      </p>
      {error && (
        <p role="alert" class="error">
          {error}
        </p>
      )}
      <button type="button" class="primary" disabled={busy} onClick={grant}>
        Allow the assistant
      </button>
    </section>
  )
}
