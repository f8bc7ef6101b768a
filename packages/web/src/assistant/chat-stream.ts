import { type ServerAccess, ServerCallError } from '../server-calls.ts'

/** One event of a chat turn's stream, as docs/api/assistant.md lists them. */
export type ChatEvent =
  | { event: 'turn.started'; data: { conversationId: string; userMessageId: string; messageId: string } }
  | { event: 'message.delta'; data: { messageId: string; text: string } }
  | { event: 'tool.call'; data: { messageId: string; callId: string; name: string; args: unknown } }
  | {
      event: 'tool.result'
      data: {
        messageId: string
        callId: string
        name: string
        ok: boolean
        result?: unknown
        error?: { code: string; message: string }
      }
    }
  | { event: 'action.proposed'; data: { messageId: string; action: AiAction } }
  | { event: 'message.completed'; data: { messageId: string; conversationId: string; content: string } }
  | { event: 'error'; data: { messageId: string; code: string; detail: string } }

/** A write the assistant proposed, waiting for the member who asked to confirm or cancel it. */
export interface AiAction {
  id: string
  operation: string
  args: Record<string, unknown>
  summary: string
  preview: unknown
  status: 'pending' | 'executed' | 'cancelled' | 'expired' | 'failed'
  result: unknown
  expiresAt: string
}

/**
 * Splits a `text/event-stream` body into events as it arrives: feed it each chunk of text, and
 * it answers the events the chunk completed, keeping a partial one for the next chunk.
 */
export function eventStreamReader(): (chunk: string) => ChatEvent[] {
  let pending = ''
  return (chunk) => {
    // A CR may end one chunk and its LF begin the next: lines are split on the text so far.
    pending += chunk
    const blocks = pending.split(/\r?\n\r?\n/)
    pending = blocks.pop() ?? ''
    const events: ChatEvent[] = []
    for (const block of blocks) {
      let event = 'message'
      const data: string[] = []
      for (const line of block.split(/\r?\n/)) {
        if (line.startsWith('event:')) event = line.slice(6).trim()
        else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
      }
      if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) } as ChatEvent)
    }
    return events
  }
}

/**
 * Sends one chat turn (`POST H/ai/chat`) and hands each streamed event to `onEvent` as it comes.
 * A refusal before the stream (consent, caps, a bad message) throws a `ServerCallError` with its
 * code, and `resetsAt` for a cap.
 */
export async function streamChat(
  access: ServerAccess,
  householdId: string,
  body: { message: string; conversationId?: string },
  onEvent: (event: ChatEvent) => void,
  signal?: AbortSignal,
): Promise<void> {
  let response: Response
  try {
    response = await fetch(new URL(`/households/${householdId}/ai/chat`, access.serverUrl), {
      method: 'POST',
      credentials: 'include',
      headers: {
        'content-type': 'application/json',
        ...(access.token && { authorization: `Bearer ${access.token}` }),
      },
      body: JSON.stringify(body),
      signal,
    })
  } catch {
    if (signal?.aborted) return
    throw new ServerCallError(0, 'UNREACHABLE', 'The assistant needs the server; try again when online.')
  }
  if (!response.ok || !response.body) {
    const problem = (await response.json().catch(() => ({}))) as Record<string, unknown>
    throw Object.assign(
      new ServerCallError(
        response.status,
        String(problem.code ?? `HTTP_${response.status}`),
        String(problem.detail ?? problem.title ?? response.statusText),
      ),
      { resetsAt: typeof problem.resetsAt === 'string' ? problem.resetsAt : undefined },
    )
  }
  const read = eventStreamReader()
  const decoder = new TextDecoder()
  const reader = response.body.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    for (const event of read(decoder.decode(value, { stream: true }))) onEvent(event)
  }
  for (const event of read(`${decoder.decode()}\n\n`)) onEvent(event)
}
