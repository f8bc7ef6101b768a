import type { AiAction, ChatEvent } from './chat-stream.ts'

/** A tool the assistant ran for an answer: what it read, and whether the read worked. */
export interface ToolRead {
  callId: string
  name: string
  args: unknown
  /** Undefined while it runs. */
  ok?: boolean
  error?: string
}

/** One message of the thread as the panel shows it. */
export interface ChatTurn {
  id: string
  role: 'user' | 'assistant'
  text: string
  status: 'streaming' | 'complete' | 'interrupted' | 'failed'
  reads: ToolRead[]
  /** The actions proposed in this message, by id (a stored message names them; a live one has them whole). */
  actionIds: string[]
  error?: { code: string; detail: string }
}

/** A message as `GET H/ai/conversations/{id}` answers it. */
export interface StoredMessage {
  id: string
  role: 'user' | 'assistant'
  content: string
  status: ChatTurn['status']
  parts: (
    | { type: 'tool.call'; id: string; name: string; args: unknown }
    | { type: 'tool.result'; id: string; name: string; ok: boolean; result: unknown }
    | { type: 'action.proposed'; actionId: string }
  )[]
}

/** A stored conversation's messages as turns: each tool call with its result, each proposed action's id. */
export function turnsOf(messages: readonly StoredMessage[]): ChatTurn[] {
  return messages.map((m) => {
    const reads: ToolRead[] = []
    const actionIds: string[] = []
    for (const part of m.parts ?? []) {
      if (part.type === 'tool.call') reads.push({ callId: part.id, name: part.name, args: part.args })
      else if (part.type === 'tool.result') {
        const read = reads.find((r) => r.callId === part.id)
        if (read) {
          read.ok = part.ok
          if (!part.ok) read.error = errorWords(part.result)
        }
      } else actionIds.push(part.actionId)
    }
    return { id: m.id, role: m.role, text: m.content, status: m.status, reads, actionIds }
  })
}

/**
 * The thread after one streamed event: the answer's text grows, a tool call is listed and then
 * marked done, a proposed action is named (and answered whole in `actions`), the end settles it.
 */
export function applyChatEvent(
  turns: readonly ChatTurn[],
  actions: Readonly<Record<string, AiAction>>,
  event: ChatEvent,
): { turns: ChatTurn[]; actions: Record<string, AiAction> } {
  const id = event.data.messageId
  const update = (change: (turn: ChatTurn) => ChatTurn) =>
    turns.map((turn) => (turn.id === id ? change(turn) : turn))
  switch (event.event) {
    case 'turn.started':
      return {
        turns: [...turns, { id, role: 'assistant', text: '', status: 'streaming', reads: [], actionIds: [] }],
        actions: { ...actions },
      }
    case 'message.delta':
      return { turns: update((t) => ({ ...t, text: t.text + event.data.text })), actions: { ...actions } }
    case 'tool.call': {
      const { callId, name, args } = event.data
      return {
        turns: update((t) => ({ ...t, reads: [...t.reads, { callId, name, args }] })),
        actions: { ...actions },
      }
    }
    case 'tool.result': {
      const { callId, ok, error } = event.data
      return {
        turns: update((t) => ({
          ...t,
          reads: t.reads.map((r) =>
            r.callId === callId ? { ...r, ok, ...(!ok && { error: errorWords(error) }) } : r,
          ),
        })),
        actions: { ...actions },
      }
    }
    case 'action.proposed': {
      const { action } = event.data
      return {
        turns: update((t) => ({ ...t, actionIds: [...t.actionIds, action.id] })),
        actions: { ...actions, [action.id]: action },
      }
    }
    case 'message.completed':
      return {
        turns: update((t) => ({ ...t, text: event.data.content, status: 'complete' })),
        actions: { ...actions },
      }
    case 'error':
      return {
        turns: update((t) => ({
          ...t,
          status: 'failed',
          error: { code: event.data.code, detail: event.data.detail },
        })),
        actions: { ...actions },
      }
  }
}

/** A refused tool's message, from its `{code, message}`. */
function errorWords(error: unknown): string {
  if (error && typeof error === 'object' && 'message' in error) return String(error.message)
  return 'The read was refused.'
}
