import http from 'node:http'
import https from 'node:https'
import { agentFor } from '../webhooks/send.ts'
import { type ResolvedTarget, resolveTarget, type UrlGuardOptions } from '../webhooks/url-guard.ts'

/** An answer from a provider: status and body text. */
export interface ProviderAnswer {
  status: number
  body: string
}

/** A provider answered with more than this: refused rather than held in memory. */
const MAX_ANSWER_BYTES = 64 * 1024 * 1024

/**
 * Sends one request to a provider URL the server's URL guard approves (the same guard as
 * webhooks: public addresses only outside tests), connecting to exactly the address checked and
 * following no redirect. Credentials in the URL become a Basic authorization header, never part
 * of what is logged or guarded. Rejects on a refused URL (EngineError 422), a network error or
 * the timeout.
 */
export async function requestProvider(
  raw: string,
  init: { method: 'GET' | 'POST'; timeoutMs: number; guard: UrlGuardOptions },
): Promise<ProviderAnswer> {
  const url = new URL(raw)
  const user = decodeURIComponent(url.username)
  const password = decodeURIComponent(url.password)
  url.username = ''
  url.password = ''
  const target = await resolveTarget(url.toString(), init.guard)
  const headers: Record<string, string> = { 'user-agent': 'Hearth-BankSync/1', accept: 'application/json' }
  if (user || password)
    headers.authorization = `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`
  if (init.method === 'POST') headers['content-length'] = '0'
  return send(target, init.method, headers, init.timeoutMs)
}

function send(
  target: ResolvedTarget,
  method: string,
  headers: Record<string, string>,
  timeoutMs: number,
): Promise<ProviderAnswer> {
  const client = target.url.protocol === 'https:' ? https : http
  const signal = AbortSignal.timeout(timeoutMs)
  return new Promise((resolve, reject) => {
    const request = client.request(
      target.url,
      { method, headers, signal, agent: agentFor(target) },
      (response) => {
        const chunks: Buffer[] = []
        let size = 0
        response.on('data', (chunk: Buffer) => {
          size += chunk.length
          if (size > MAX_ANSWER_BYTES) {
            request.destroy(new Error(`The provider answered with more than ${MAX_ANSWER_BYTES} bytes.`))
            return
          }
          chunks.push(chunk)
        })
        response.on('end', () =>
          resolve({ status: response.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        )
        response.on('error', reject)
      },
    )
    request.on('error', (error: NodeJS.ErrnoException) =>
      reject(
        error.name === 'AbortError' || error.name === 'TimeoutError'
          ? new Error(`The provider did not answer within ${timeoutMs} ms.`)
          : error,
      ),
    )
    request.end()
  })
}
