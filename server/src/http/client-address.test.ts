import { describe, expect, it } from 'vitest'
import { ClientAddresses, trustedProxiesFromEnv } from './client-address.ts'

const headers =
  (values: Record<string, string>) =>
  (name: string): string | undefined =>
    values[name]

describe('ClientAddresses', () => {
  it('answers the socket peer and ignores forwarding headers when no proxy is trusted', () => {
    const addresses = new ClientAddresses()
    expect(addresses.of('::ffff:10.0.0.9', headers({ 'x-forwarded-for': '1.2.3.4' }))).toBe('10.0.0.9')
    expect(addresses.of(undefined, headers({}))).toBe('unknown')
  })

  it('ignores forwarding headers from a peer that is not a trusted proxy', () => {
    const addresses = new ClientAddresses(['10.0.0.0/8'])
    expect(addresses.of('192.168.1.5', headers({ 'x-forwarded-for': '1.2.3.4' }))).toBe('192.168.1.5')
  })

  it('reads X-Forwarded-For from the right past every trusted hop', () => {
    const addresses = new ClientAddresses(['10.0.0.0/8', '::1'])
    const forwarded = headers({ 'x-forwarded-for': '6.6.6.6, 203.0.113.7, 10.1.1.1' })
    expect(addresses.of('::1', forwarded)).toBe('203.0.113.7')
    // Everything trusted: the furthest hop is the client.
    expect(addresses.of('10.0.0.2', headers({ 'x-forwarded-for': '10.9.9.9' }))).toBe('10.9.9.9')
    // A hop that is no address ends the walk at the last trusted one.
    expect(addresses.of('10.0.0.2', headers({ 'x-forwarded-for': 'nonsense' }))).toBe('10.0.0.2')
  })

  it('reads Forwarded when no X-Forwarded-For arrived, with quotes, brackets and ports', () => {
    const addresses = new ClientAddresses(['127.0.0.1'])
    const forwarded = headers({ forwarded: 'for=198.51.100.1;proto=https, for="[2001:db8:cafe::17]:4711"' })
    expect(addresses.of('127.0.0.1', forwarded)).toBe('2001:db8:cafe::17')
    const both = headers({ forwarded: 'for=198.51.100.1', 'x-forwarded-for': '203.0.113.9' })
    expect(addresses.of('127.0.0.1', both)).toBe('203.0.113.9')
  })

  it('reads HEARTH_TRUSTED_PROXIES and stops start-up on a bad entry, naming it', () => {
    expect(trustedProxiesFromEnv({ HEARTH_TRUSTED_PROXIES: ' 10.0.0.5, 172.16.0.0/12,fd00::/8 ' })).toEqual([
      '10.0.0.5',
      '172.16.0.0/12',
      'fd00::/8',
    ])
    expect(trustedProxiesFromEnv({})).toEqual([])
    expect(() => trustedProxiesFromEnv({ HEARTH_TRUSTED_PROXIES: '10.0.0.0/33' })).toThrow(/10\.0\.0\.0\/33/)
    expect(() => trustedProxiesFromEnv({ HEARTH_TRUSTED_PROXIES: 'proxy.local' })).toThrow(/proxy\.local/)
  })
})
