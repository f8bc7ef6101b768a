import type { ApiClient } from '../src/index.ts'

/** One Server-Sent Event as a standard parser reads it. */
export interface SseEvent {
  event: string
  data: any
}

/** Parses a whole `text/event-stream` body into its events. */
export function parseSse(text: string): SseEvent[] {
  const events: SseEvent[] = []
  for (const block of text.split(/\n\n/)) {
    let event = 'message'
    const data: string[] = []
    for (const line of block.split('\n')) {
      if (line.startsWith('event:')) event = line.slice(6).trim()
      else if (line.startsWith('data:')) data.push(line.slice(5).trimStart())
    }
    if (data.length > 0) events.push({ event, data: JSON.parse(data.join('\n')) })
  }
  return events
}

/** What one chat turn answered: status, headers, events, and the assistant's whole text. */
export interface ChatAnswer {
  status: number
  contentType: string | null
  events: SseEvent[]
  text: string
  body: any
}

/** Sends one chat turn over real HTTP and reads the stream to its end. */
export async function chat(
  baseUrl: string,
  api: ApiClient,
  message: string,
  extra: Record<string, unknown> = {},
  headers: Record<string, string> = {},
): Promise<ChatAnswer> {
  const res = await fetch(`${baseUrl}/households/current/ai/chat`, {
    method: 'POST',
    headers: { authorization: `Bearer ${api.token}`, 'content-type': 'application/json', ...headers },
    body: JSON.stringify({ message, ...extra }),
  })
  const raw = await res.text()
  const contentType = res.headers.get('content-type')
  if (!contentType?.startsWith('text/event-stream')) {
    return { status: res.status, contentType, events: [], text: '', body: raw ? JSON.parse(raw) : null }
  }
  const events = parseSse(raw)
  const text = events
    .filter((e) => e.event === 'message.delta')
    .map((e) => e.data.text)
    .join('')
  return { status: res.status, contentType, events, text, body: null }
}

const pad = (n: number) => String(n).padStart(2, '0')

/** Dates relative to today (UTC), as the offline assistant reads "this month" and "last month". */
export function relativeDates(now = new Date()) {
  const y = now.getUTCFullYear()
  const m = now.getUTCMonth()
  const last = new Date(Date.UTC(y, m - 1, 15))
  return {
    thisMonth: `${y}-${pad(m + 1)}`,
    thisMonthDay: `${y}-${pad(m + 1)}-01`,
    lastMonth: `${last.getUTCFullYear()}-${pad(last.getUTCMonth() + 1)}`,
    lastMonthDay: `${last.getUTCFullYear()}-${pad(last.getUTCMonth() + 1)}-15`,
  }
}
