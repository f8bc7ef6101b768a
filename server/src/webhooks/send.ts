import http from 'node:http'
import https from 'node:https'
import type { ResolvedTarget } from './url-guard.ts'

/** What a receiver answered. */
export interface ReceiverAnswer {
  status: number
  retryAfter: string | null
  /** The first bytes of its body, for the delivery log. */
  snippet: string
}

const SNIPPET_BYTES = 500

/** How long a connection to a receiver is kept open with nothing to send on it. */
const IDLE_SOCKET_MS = 1000

/**
 * Keep-alive agents, one per checked address (with the URL's protocol, port and host name), so a
 * burst of deliveries to one receiver reuses its connections, and a kept connection always leads
 * to an address the guard approved for this delivery: a host name that resolves elsewhere gets
 * another agent. Idle connections close after a second; agents unused for a minute go.
 */
const agents = new Map<string, { agent: http.Agent; usedAt: number }>()
let sweptAt = 0

export function agentFor(target: ResolvedTarget): http.Agent {
  const now = Date.now()
  if (now - sweptAt > 60_000) {
    sweptAt = now
    for (const [key, entry] of agents) {
      if (now - entry.usedAt > 60_000) {
        entry.agent.destroy()
        agents.delete(key)
      }
    }
  }
  const { protocol, port, hostname } = target.url
  const key = `${protocol}//${hostname}:${port}@${target.address}`
  let entry = agents.get(key)
  if (!entry) {
    const options: http.AgentOptions = {
      keepAlive: true,
      // An idle connection's timeout closes it (Node destroys a free socket that times out).
      timeout: IDLE_SOCKET_MS,
      scheduling: 'lifo',
      lookup: (_host, lookupOptions, callback) => {
        // Node asks with `all: true` for happy-eyeballs; answer in the shape it asked for.
        if ((lookupOptions as { all?: boolean }).all) {
          ;(callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
            { address: target.address, family: target.family },
          ])
        } else callback(null, target.address, target.family)
      },
    }
    entry = { agent: protocol === 'https:' ? new https.Agent(options) : new http.Agent(options), usedAt: now }
    agents.set(key, entry)
  }
  entry.usedAt = now
  return entry.agent
}

/**
 * POSTs a body to a checked target, connecting to exactly the address the guard approved (no
 * second lookup a changed DNS answer could slip through), following no redirect, and giving up
 * after `timeoutMs` however far the exchange got.
 */
export async function postToReceiver(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<ReceiverAnswer> {
  const signal = AbortSignal.timeout(timeoutMs)
  try {
    return await postOnce(target, headers, body, signal, timeoutMs)
  } catch (error) {
    // A kept connection the receiver closed as this request went out: once more, on a new one
    // (the receiver may have got it; a delivery is at-least-once on the wire, with one id).
    if (!(error instanceof StaleConnection)) throw error
    return postOnce(target, headers, body, signal, timeoutMs)
  }
}

/** A reused connection failed before any answer. */
class StaleConnection extends Error {}

function postOnce(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  signal: AbortSignal,
  timeoutMs: number,
): Promise<ReceiverAnswer> {
  const client = target.url.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const request = client.request(
      target.url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Hearth-Webhooks/1' },
        signal,
        agent: agentFor(target),
      },
      (response) => {
        const chunks: Buffer[] = []
        let size = 0
        response.on('data', (chunk: Buffer) => {
          if (size < SNIPPET_BYTES) chunks.push(chunk)
          size += chunk.length
        })
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            retryAfter: (response.headers['retry-after'] as string | undefined) ?? null,
            snippet: Buffer.concat(chunks).subarray(0, SNIPPET_BYTES).toString('utf8'),
          }),
        )
        response.on('error', reject)
      },
    )
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.name === 'AbortError' || error.name === 'TimeoutError'
          ? new Error(`No answer within ${timeoutMs} ms.`)
          : request.reusedSocket && (error.code === 'ECONNRESET' || error.code === 'EPIPE')
            ? new StaleConnection(error.message)
            : error,
      ),
    )
    request.end(body)
  })
}
