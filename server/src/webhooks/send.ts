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

/**
 * POSTs a body to a checked target, connecting to exactly the address the guard approved (no
 * second lookup a changed DNS answer could slip through), following no redirect, and giving up
 * after `timeoutMs` however far the exchange got.
 */
export function postToReceiver(
  target: ResolvedTarget,
  headers: Record<string, string>,
  body: string,
  timeoutMs: number,
): Promise<ReceiverAnswer> {
  const client = target.url.protocol === 'https:' ? https : http
  return new Promise((resolve, reject) => {
    const request = client.request(
      target.url,
      {
        method: 'POST',
        headers: { ...headers, 'content-type': 'application/json', 'user-agent': 'Hearth-Webhooks/1' },
        signal: AbortSignal.timeout(timeoutMs),
        agent: false,
        lookup: (_host, options, callback) => {
          // Node asks with `all: true` for happy-eyeballs; answer in the shape it asked for.
          if ((options as { all?: boolean }).all) {
            ;(callback as (e: null, a: { address: string; family: number }[]) => void)(null, [
              { address: target.address, family: target.family },
            ])
          } else callback(null, target.address, target.family)
        },
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
    request.on('error', (error) =>
      reject(
        error.name === 'AbortError' || error.name === 'TimeoutError'
          ? new Error(`No answer within ${timeoutMs} ms.`)
          : error,
      ),
    )
    request.end(body)
  })
}
