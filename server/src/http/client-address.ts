import ipaddr from 'ipaddr.js'

type Range = [ipaddr.IPv4 | ipaddr.IPv6, number]

/** A request header by its lower-case name, as each transport reads it. */
export type HeaderOf = (name: string) => string | undefined

/**
 * Where a request comes from: the socket's peer, unless that peer is one of the configured proxies
 * (`HEARTH_TRUSTED_PROXIES`); then the address the proxies forwarded, read from the right of
 * `X-Forwarded-For` (or of `Forwarded` when no `X-Forwarded-For` arrived) past every trusted hop.
 * A client can prepend any address it likes to those headers, never append one, so the first
 * untrusted hop from the right is the one a trusted proxy saw.
 */
export class ClientAddresses {
  private readonly ranges: Range[]

  constructor(readonly trustedProxies: readonly string[] = []) {
    this.ranges = trustedProxies.map(parseRange)
  }

  /** The client's address for limits and logs. */
  of(peer: string | undefined, header: HeaderOf): string {
    let address = canonical(peer)
    if (!address || this.ranges.length === 0) return address ?? peer ?? 'unknown'
    const hops = forwardedHops(header)
    while (this.trusted(address)) {
      const next = hops.pop()
      if (next === undefined) return address
      const parsed = canonical(next)
      // A hop that is not an address (`unknown`, an obfuscated name) ends what can be known.
      if (!parsed) return address
      address = parsed
    }
    return address
  }

  private trusted(address: string): boolean {
    const ip = ipaddr.parse(address)
    return this.ranges.some(([range, bits]) => ip.kind() === range.kind() && ip.match(range, bits))
  }
}

/** Reads `HEARTH_TRUSTED_PROXIES`: addresses or CIDR ranges, comma-separated; a bad one stops start-up. */
export function trustedProxiesFromEnv(env: NodeJS.ProcessEnv): string[] {
  const list = (env.HEARTH_TRUSTED_PROXIES ?? '')
    .split(',')
    .map((entry) => entry.trim())
    .filter((entry) => entry !== '')
  for (const entry of list) {
    try {
      parseRange(entry)
    } catch {
      throw new Error(
        `HEARTH_TRUSTED_PROXIES must be a comma-separated list of addresses or CIDR ranges (such as 10.0.0.5 or 172.16.0.0/12), got "${entry}".`,
      )
    }
  }
  return list
}

function parseRange(entry: string): Range {
  if (entry.includes('/')) return ipaddr.parseCIDR(entry)
  const address = canonical(entry)
  if (!address) throw new Error(`Not an address: ${entry}`)
  const ip = ipaddr.parse(address)
  return [ip, ip.kind() === 'ipv4' ? 32 : 128]
}

/** The address in canonical form (an IPv4-mapped IPv6 address as IPv4), or null if it is none. */
function canonical(value: string | undefined): string | null {
  if (!value) return null
  let text = value.trim().replace(/^"|"$/g, '')
  // `Forwarded` writes IPv6 in brackets and either family may carry a port.
  const bracketed = /^\[([^\]]+)\](?::\d+)?$/.exec(text)
  if (bracketed) text = bracketed[1]!
  else if (/^[\d.]+:\d+$/.test(text)) text = text.slice(0, text.lastIndexOf(':'))
  if (!ipaddr.IPv4.isValidFourPartDecimal(text) && !ipaddr.IPv6.isValid(text)) return null
  return ipaddr.process(text).toString()
}

/** The forwarded hops, nearest last: `X-Forwarded-For`, or the `for=` of each `Forwarded` element. */
function forwardedHops(header: HeaderOf): string[] {
  const xff = header('x-forwarded-for')
  if (xff !== undefined) return xff.split(',').map((hop) => hop.trim())
  const forwarded = header('forwarded')
  if (forwarded === undefined) return []
  return forwarded.split(',').map((element) => {
    const pair = element
      .split(';')
      .map((p) => p.trim())
      .find((p) => p.toLowerCase().startsWith('for='))
    return pair ? pair.slice(4) : ''
  })
}
