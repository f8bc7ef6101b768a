import { lookup as dnsLookup } from 'node:dns/promises'
import { EngineError } from '@hearth/engine'
import ipaddr from 'ipaddr.js'

/** Resolves a host name to its addresses; tests pass their own instead of the network's. */
export type Lookup = (hostname: string) => Promise<{ address: string; family: number }[]>

/** How the guard judges where a webhook may go. */
export interface UrlGuardOptions {
  /** Let loopback, private, link-local and unique-local targets through (local setups, tests). */
  allowPrivate: boolean
  lookup?: Lookup
}

/** Where one delivery goes: the URL and the address it was checked at, to connect to exactly. */
export interface ResolvedTarget {
  url: URL
  address: string
  family: 4 | 6
}

/** Instance metadata services: refused even where private targets are allowed. */
const CLOUD_METADATA = ['169.254.169.254', 'fd00:ec2::254', '100.100.100.200'].map((a) => ipaddr.parse(a))

/** The system's resolver (getaddrinfo, as connecting would use). */
export const systemLookup: Lookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true })

/**
 * A lookup that keeps each host name's answer for `ttlMs`, so a burst of deliveries to one
 * receiver resolves its name once rather than once each. The guard still checks the addresses of
 * every delivery, and the sender connects to the one it checked; a failed lookup is not kept.
 */
export function cachedLookup(lookup: Lookup, ttlMs: number): Lookup {
  const answers = new Map<string, { at: number; answer: ReturnType<Lookup> }>()
  return (hostname) => {
    const now = Date.now()
    const kept = answers.get(hostname)
    if (kept && now - kept.at < ttlMs) return kept.answer
    if (answers.size > 1000) answers.clear()
    const answer = lookup(hostname)
    const entry = { at: now, answer }
    answers.set(hostname, entry)
    answer.catch(() => answers.get(hostname) === entry && answers.delete(hostname))
    return answer
  }
}

/** A URL the guard refuses: 422 `WEBHOOK_URL_REFUSED`, naming why. */
export function refusedUrl(reason: string): EngineError {
  return new EngineError(422, 'WEBHOOK_URL_REFUSED', reason, {
    errors: [{ path: 'url', message: reason, code: 'refused' }],
  })
}

/**
 * Checks a webhook URL and resolves it: http(s) only, no credentials, and every address the name
 * resolves to must be public unicast (ipaddr.js's `unicast` range) unless private targets are
 * allowed. Loopback, private, link-local (cloud metadata at 169.254.169.254 included),
 * unique-local, carrier-grade NAT and the rest are refused. Run at creation and at every delivery,
 * since a name can resolve elsewhere later; the sender connects to the address checked here.
 */
export async function resolveTarget(raw: string, options: UrlGuardOptions): Promise<ResolvedTarget> {
  let url: URL
  try {
    url = new URL(raw)
  } catch {
    throw refusedUrl('The URL is not an absolute http or https URL.')
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw refusedUrl(`Only http and https URLs are allowed, not ${url.protocol}`)
  }
  if (url.username !== '' || url.password !== '') throw refusedUrl('The URL must not carry credentials.')
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1')
  let addresses: { address: string; family: number }[]
  if (ipaddr.isValid(host)) {
    addresses = [{ address: host, family: host.includes(':') ? 6 : 4 }]
  } else {
    try {
      addresses = await (options.lookup ?? systemLookup)(host)
    } catch {
      throw refusedUrl(`The host ${host} does not resolve.`)
    }
    if (addresses.length === 0) throw refusedUrl(`The host ${host} does not resolve.`)
  }
  for (const { address } of addresses) {
    const parsed = ipaddr.process(address)
    if (CLOUD_METADATA.some((m) => m.kind() === parsed.kind() && m.toString() === parsed.toString())) {
      throw refusedUrl(
        `The host ${host} resolves to ${address}, a cloud metadata address; never a webhook target.`,
      )
    }
    const range = parsed.range()
    if (range !== 'unicast' && !options.allowPrivate) {
      throw refusedUrl(
        `The host ${host} resolves to ${address}, a ${range} address; webhooks go to public addresses only.`,
      )
    }
  }
  const first = ipaddr.process(addresses[0]!.address)
  return { url, address: first.toString(), family: first.kind() === 'ipv6' ? 6 : 4 }
}
