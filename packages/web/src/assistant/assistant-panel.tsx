import type { Hearth } from '@hearth/client'
import { useEffect, useMemo, useRef, useState } from 'preact/hooks'
import { errorMessage } from '../format.ts'
import { useWatch } from '../hooks.ts'
import { type ServerAccess, ServerCallError, serverCall } from '../server-calls.ts'
import { useServerRead } from '../server-read.ts'
import { ActionCard } from './action-card.tsx'
import { type AiAction, streamChat } from './chat-stream.ts'
import { applyChatEvent, type ChatTurn, type StoredMessage, turnsOf } from './chat-turns.ts'
import { ConsentStep } from './consent-step.tsx'
import { ConversationList } from './conversation-list.tsx'
import { toolWords } from './tool-words.ts'
import { UsageLine } from './usage-line.tsx'

/**
 * The assistant beside every screen: the consent step until it is given, then a chat whose answers
 * stream in, with what each answer read and the changes it proposes (each with its preview,
 * Confirm and Cancel), the usage against the caps, and the conversations to reopen, search and
 * delete. Chat runs on the server (docs/api/assistant.md): offline, the panel says so.
 */
export function AssistantPanel(props: {
  hearth: Hearth | null
  access: ServerAccess
  householdId: string
  onClose: () => void
}) {
  const { access, householdId } = props
  const ai = `/households/${householdId}/ai`
  const consent = useServerRead(() => serverCall<{ granted: boolean }>(access, 'GET', `${ai}/consent`), [ai])
  const [conversationId, setConversationId] = useState<string | null>(null)
  const [thread, setThread] = useState<{ turns: ChatTurn[]; actions: Record<string, AiAction> }>({
    turns: [],
    actions: {},
  })
  const [streaming, setStreaming] = useState<AbortController | null>(null)
  const [problem, setProblem] = useState<string | null>(null)
  const [round, setRound] = useState(0)
  const [message, setMessage] = useState('')
  const household = useWatch(props.hearth, 'households.get', {})
  const categories = useWatch(props.hearth, 'categories.list', { include: 'deleted' })
  const currency = household.data?.baseCurrency ?? 'USD'
  const categoryName = useMemo(() => {
    const names = new Map((categories.data?.items ?? []).map((c) => [c.id, c.name]))
    return (id: string) => names.get(id) ?? 'a category'
  }, [categories.data])
  const input = useRef<HTMLTextAreaElement>(null)
  const granted = consent.data?.granted === true

  useEffect(() => {
    if (granted) input.current?.focus()
  }, [granted])
  // A turn under way stops when the panel closes (the server keeps it as interrupted).
  useEffect(() => () => streaming?.abort(), [streaming])

  const open = async (id: string) => {
    setProblem(null)
    try {
      const [conversation, pending] = await Promise.all([
        serverCall<{ id: string; messages: StoredMessage[] }>(access, 'GET', `${ai}/conversations/${id}`),
        serverCall<{ items: AiAction[] }>(access, 'GET', `${ai}/actions?limit=100`),
      ])
      setConversationId(id)
      setThread({
        turns: turnsOf(conversation.messages),
        actions: Object.fromEntries(pending.items.map((a) => [a.id, a])),
      })
    } catch (e) {
      setProblem(errorMessage(e))
    }
  }
  const startNew = () => {
    setConversationId(null)
    setThread({ turns: [], actions: {} })
    setProblem(null)
    input.current?.focus()
  }

  const ask = async (event: Event) => {
    event.preventDefault()
    const text = message.trim()
    if (!text || streaming) return
    const stop = new AbortController()
    setStreaming(stop)
    setProblem(null)
    setMessage('')
    const localId = `asked-${Date.now()}`
    setThread((t) => ({
      ...t,
      turns: [...t.turns, { id: localId, role: 'user', text, status: 'complete', reads: [], actionIds: [] }],
    }))
    try {
      await streamChat(
        access,
        householdId,
        { message: text, ...(conversationId && { conversationId }) },
        (e) => {
          if (e.event === 'turn.started') setConversationId(e.data.conversationId)
          setThread((t) => applyChatEvent(t.turns, t.actions, e))
        },
        stop.signal,
      )
    } catch (e) {
      // The question was not taken: it goes back into the box, and the reason is said.
      setThread((t) => ({ ...t, turns: t.turns.filter((turn) => turn.id !== localId) }))
      setMessage(text)
      if (e instanceof ServerCallError && e.code === 'AI_CONSENT_REQUIRED') consent.reload()
      setProblem(refusalWords(e))
    } finally {
      setStreaming(null)
      setRound((r) => r + 1)
    }
  }

  const withdraw = async () => {
    setProblem(null)
    try {
      await serverCall(access, 'DELETE', `${ai}/consent`)
      startNew()
      consent.reload()
    } catch (e) {
      setProblem(refusalWords(e))
    }
  }

  const close = (event: KeyboardEvent) => {
    if (event.key === 'Escape') props.onClose()
  }

  return (
    <aside id="assistant-panel" class="assistant-panel" aria-labelledby="assistant-title" onKeyDown={close}>
      <header class="assistant-header">
        <h2 id="assistant-title">Assistant</h2>
        <div class="row">
          {granted && (
            <button type="button" class="ghost small" onClick={startNew}>
              New conversation
            </button>
          )}
          <button type="button" class="ghost small" onClick={props.onClose} aria-label="Close the assistant">
            Close
          </button>
        </div>
      </header>
      {consent.error ? (
        <p role="alert" class="error" data-code={(consent.error as ServerCallError).code}>
          {refusalWords(consent.error)}
        </p>
      ) : !consent.data ? (
        <p class="muted" aria-busy="true">
          Asking the server…
        </p>
      ) : !granted ? (
        <ConsentStep access={access} householdId={householdId} onGranted={consent.reload} />
      ) : (
        <>
          <UsageLine access={access} householdId={householdId} round={round} />
          <p class="muted consent-line" data-consent="granted">
            You allowed the assistant to read this household’s data.{' '}
            <button type="button" class="link" onClick={withdraw}>
              Withdraw consent
            </button>
          </p>
          <details class="assistant-history">
            <summary>History and search</summary>
            <ConversationList
              access={access}
              householdId={householdId}
              currentId={conversationId}
              round={round}
              onOpen={open}
              onDeleted={(id) => id === conversationId && startNew()}
            />
          </details>
          <div class="chat-log" role="log" aria-live="polite" aria-busy={streaming ? 'true' : 'false'}>
            {thread.turns.length === 0 ? (
              <p class="muted">
                Ask about your household’s money: “How much did we spend on groceries this month?”, “What
                bills are coming up?”, or “Move 50 from Dining Out to Groceries”. Changes wait for you to
                confirm.
              </p>
            ) : (
              <ol class="chat-thread">
                {thread.turns.map((turn) => (
                  <li
                    key={turn.id}
                    class={`chat-turn chat-${turn.role}`}
                    data-role={turn.role}
                    data-status={turn.status}
                  >
                    <span class="visually-hidden">
                      {turn.role === 'user' ? 'You asked:' : 'The assistant:'}
                    </span>
                    {turn.reads.length > 0 && (
                      <ul class="chat-reads" aria-label="What the assistant read">
                        {turn.reads.map((read) => (
                          <li
                            key={read.callId}
                            data-tool={read.name}
                            data-ok={read.ok === undefined ? undefined : String(read.ok)}
                          >
                            {read.ok === false ? 'Could not read ' : read.ok ? 'Read ' : 'Reading '}
                            {toolWords(read.name)}
                            {read.error && `: ${read.error}`}
                          </li>
                        ))}
                      </ul>
                    )}
                    {turn.text && <p class="chat-text">{turn.text}</p>}
                    {turn.error && (
                      <p role="alert" class="error" data-code={turn.error.code}>
                        {turn.error.detail}
                      </p>
                    )}
                    {turn.actionIds.map((id) =>
                      thread.actions[id] ? (
                        <ActionCard
                          key={id}
                          access={access}
                          householdId={householdId}
                          action={thread.actions[id]!}
                          currency={currency}
                          categoryName={categoryName}
                          onChange={(action) =>
                            setThread((t) => ({ ...t, actions: { ...t.actions, [action.id]: action } }))
                          }
                        />
                      ) : (
                        <p key={id} class="muted">
                          A change was proposed here; it is no longer waiting (confirmed, cancelled or
                          expired).
                        </p>
                      ),
                    )}
                  </li>
                ))}
              </ol>
            )}
          </div>
          {problem && (
            <p role="alert" class="error">
              {problem}
            </p>
          )}
          <form class="chat-form" onSubmit={ask}>
            <label for="assistant-message">Ask the assistant</label>
            <textarea
              id="assistant-message"
              ref={input}
              rows={2}
              maxLength={4000}
              value={message}
              onInput={(e) => setMessage(e.currentTarget.value)}
              onKeyDown={(e) => {
                if (e.key === 'Enter' && !e.shiftKey) ask(e)
              }}
            />
            <div class="row">
              <button type="submit" class="primary" disabled={!!streaming || !message.trim()}>
                Send
              </button>
              {streaming && (
                <button type="button" class="ghost" onClick={() => streaming.abort()}>
                  Stop
                </button>
              )}
            </div>
          </form>
        </>
      )}
    </aside>
  )
}

/** A refusal of chat in a member's words: caps say when they reset, offline says it needs the server. */
function refusalWords(error: unknown): string {
  if (error instanceof ServerCallError) {
    if (error.code === 'AI_CAP_REACHED') {
      const resetsAt = (error as ServerCallError & { resetsAt?: string }).resetsAt
      return `The assistant’s usage limit is reached${
        resetsAt ? `; it opens again ${new Date(resetsAt).toLocaleString()}` : ''
      }.`
    }
    if (error.code === 'UNREACHABLE') return 'The assistant needs the server, and it cannot be reached now.'
    if (error.code === 'INSUFFICIENT_SCOPE')
      return `This sign-in may not use the assistant: ask an owner for a key that includes “${error.requiredScope ?? 'ai:chat'}”.`
  }
  return errorMessage(error)
}
