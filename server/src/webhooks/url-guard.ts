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

const NAT64_LOCAL_USE = ipaddr.parseCIDR('64:ff9b:1::/48')
const IPV4_COMPATIBLE = ipaddr.parseCIDR('::/96')

/**
 * The IPv4 address an IPv6 one carries, where its form says where: IPv4-mapped (`::ffff:0:0/96`),
 * IPv4-translated (`::ffff:0:0:0/96`), IPv4-compatible (`::/96`), NAT64's well-known prefix
 * (`64:ff9b::/96`), 6to4 (`2002::/16`, bits 16 to 47) and Teredo (`2001::/32`, the client's
 * address in the last 32 bits, bit-inverted). A connection to any of them can reach that IPv4
 * address, so the guard judges them by it.
 */
export function embeddedIPv4(address: ipaddr.IPv6): ipaddr.IPv4 | null {
  const p = address.parts
  const v4 = (hi: number, lo: number) => new ipaddr.IPv4([hi >> 8, hi & 0xff, lo >> 8, lo & 0xff])
  switch (address.range()) {
    case 'ipv4Mapped':
    case 'rfc6145':
      return v4(p[6]!, p[7]!)
    case 'rfc6052':
      // ipaddr.js counts the local-use prefix in; where its IPv4 bits sit is the local network's choice.
      return address.match(NAT64_LOCAL_USE) ? null : v4(p[6]!, p[7]!)
    case '6to4':
      return v4(p[1]!, p[2]!)
    case 'teredo':
      return v4(~p[6]! & 0xffff, ~p[7]! & 0xffff)
  }
  return address.match(IPV4_COMPATIBLE) && address.range() === 'unicast' ? v4(p[6]!, p[7]!) : null
}

function isMetadata(address: ipaddr.IPv4 | ipaddr.IPv6): boolean {
  return CLOUD_METADATA.some((m) => m.kind() === address.kind() && m.toString() === address.toString())
}

/** Why an address is no webhook target, or null when it is one. */
function refusalOf(address: ipaddr.IPv4 | ipaddr.IPv6, allowPrivate: boolean): string | null {
  const embedded = address.kind() === 'ipv6' ? embeddedIPv4(address as ipaddr.IPv6) : null
  const judged = embedded ?? address
  const which = embedded ? `which carries ${embedded}, ` : ''
  if (isMetadata(judged)) return `${which}a cloud metadata address; never a webhook target`
  if (allowPrivate) return null
  if (!embedded && address.kind() === 'ipv6' && address.match(NAT64_LOCAL_USE)) {
    return 'in the local-use NAT64 prefix 64:ff9b:1::/48, where the local network places the IPv4 bits; webhooks go to public addresses only'
  }
  const range = judged.range()
  return range === 'unicast' ? null : `${which}a ${range} address; webhooks go to public addresses only`
}

/**
 * Checks a webhook URL and resolves it: http(s) only, no credentials, and every address the name
 * resolves to must be public unicast (ipaddr.js's `unicast` range) unless private targets are
 * allowed. Loopback, private, link-local (cloud metadata at 169.254.169.254 included),
 * unique-local, carrier-grade NAT and the rest are refused; an IPv6 address that embeds an IPv4
 * one (`embeddedIPv4`) is judged by that IPv4 address. Run at creation and at every delivery,
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
    const reason = refusalOf(ipaddr.parse(address), options.allowPrivate)
    if (reason) throw refusedUrl(`The host ${host} resolves to ${address}, ${reason}.`)
  }
  const first = ipaddr.process(addresses[0]!.address)
  return { url, address: first.toString(), family: first.kind() === 'ipv6' ? 6 : 4 }
}
