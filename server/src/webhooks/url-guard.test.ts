import { describe, expect, it } from 'vitest'
import { EMBEDDED_PRIVATE } from './embedded-ipv4-forms.ts'
import { type Lookup, resolveTarget } from './url-guard.ts'

/** Resolves every name to `address`, as a test resolver, never the network. */
const resolvesTo =
  (...addresses: string[]): Lookup =>
  async () =>
    addresses.map((address) => ({ address, family: address.includes(':') ? 6 : 4 }))

async function refusal(url: string, lookup: Lookup, allowPrivate = false) {
  try {
    await resolveTarget(url, { allowPrivate, lookup })
  } catch (error) {
    return error as { status: number; code: string; message: string }
  }
  throw new Error(`${url} was let through`)
}

describe('the webhook URL guard', () => {
  it('refuses a name that resolves to loopback, private, link-local or unique-local addresses', async () => {
    for (const address of [
      '127.0.0.1',
      '10.1.2.3',
      '192.168.0.10',
      '172.16.5.5',
      '::1',
      'fc00::1',
      'fe80::1',
      '100.64.0.1',
      '0.0.0.0',
      '::ffff:127.0.0.1',
    ]) {
      const error = await refusal('https://hooks.example.com/x', resolvesTo(address))
      expect(error).toMatchObject({ status: 422, code: 'WEBHOOK_URL_REFUSED' })
      expect(error.message).toContain(address)
    }
  })

  it('refuses cloud metadata even where private targets are allowed', async () => {
    const error = await refusal('http://metadata.example/', resolvesTo('169.254.169.254'), true)
    expect(error.message).toContain('metadata')
    await expect(resolveTarget('http://[fd00:ec2::254]/', { allowPrivate: true })).rejects.toThrow(/metadata/)
  })

  it('refuses a name when any of its addresses is private, as a connection could use that one', async () => {
    const error = await refusal('https://mixed.example/', resolvesTo('93.184.216.34', '127.0.0.1'))
    expect(error.message).toContain('127.0.0.1')
  })

  it('lets a public address through and pins the address it checked', async () => {
    const target = await resolveTarget('https://hooks.example.com/x?y=1', {
      allowPrivate: false,
      lookup: resolvesTo('93.184.216.34'),
    })
    expect(target).toMatchObject({ address: '93.184.216.34', family: 4 })
    expect(target.url.href).toBe('https://hooks.example.com/x?y=1')
  })

  it('lets loopback through only when private targets are allowed', async () => {
    await expect(resolveTarget('http://127.0.0.1:8080/', { allowPrivate: true })).resolves.toMatchObject({
      address: '127.0.0.1',
    })
    await expect(resolveTarget('http://[::1]:8080/', { allowPrivate: false })).rejects.toThrow(/loopback/)
  })

  it('checks the IPv4 address every IPv6 form embeds against the IPv4 ranges, literal or resolved', async () => {
    for (const [form, v4, range] of EMBEDDED_PRIVATE) {
      for (const url of [`http://[${form}]/hook`, 'https://embedded.example/hook']) {
        const error = await refusal(url, resolvesTo(form))
        expect(error, `${form} via ${url}`).toMatchObject({ status: 422, code: 'WEBHOOK_URL_REFUSED' })
        expect(error.message).toContain(v4)
        expect(error.message).toContain(range)
      }
    }
  })

  it('refuses cloud metadata embedded in IPv6 even where private targets are allowed', async () => {
    for (const form of [
      '::169.254.169.254',
      '::ffff:169.254.169.254',
      '64:ff9b::169.254.169.254',
      '2002:a9fe:a9fe::1',
    ]) {
      const error = await refusal(`http://[${form}]/`, resolvesTo(form), true)
      expect(error.message, form).toContain('metadata')
    }
  })

  it('lets an IPv6 form through when the IPv4 it embeds is public', async () => {
    for (const form of [
      '::ffff:93.184.216.34',
      '64:ff9b::93.184.216.34',
      '2002:5db8:d822::1',
      // Teredo: the client address 93.184.216.34 is stored bit-inverted (a247:27dd).
      '2001:0:4136:e378:8000:63bf:a247:27dd',
    ]) {
      await expect(resolveTarget(`http://[${form}]/`, { allowPrivate: false }), form).resolves.toMatchObject({
        family: expect.any(Number),
      })
    }
  })

  it('refuses the local-use NAT64 prefix 64:ff9b:1::/48, whose IPv4 bits the local network places', async () => {
    for (const form of ['64:ff9b:1::7f00:1', '64:ff9b:1:5db8:d8:2200::']) {
      const error = await refusal(`http://[${form}]/`, resolvesTo(form))
      expect(error.message, form).toContain('NAT64')
    }
  })

  it('refuses other schemes, credentials and names that do not resolve', async () => {
    const none: Lookup = async () => {
      throw new Error('ENOTFOUND')
    }
    expect((await refusal('ftp://example.com/', none)).message).toContain('ftp:')
    expect((await refusal('https://a:b@example.com/', none)).message).toContain('credentials')
    expect((await refusal('https://nowhere.invalid/', none)).message).toContain('does not resolve')
  })
})
