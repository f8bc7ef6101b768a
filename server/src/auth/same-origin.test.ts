import { describe, expect, it } from 'vitest'
import { fromSameOrigin } from './same-origin.ts'

const headers = (h: Record<string, string>) => (name: string) => h[name]

describe('fromSameOrigin', () => {
  it('accepts an Origin naming the host the request was made to, whatever its scheme', () => {
    expect(fromSameOrigin(headers({ origin: 'https://hearth.example', host: 'hearth.example' }), '*')).toBe(
      true,
    )
    expect(fromSameOrigin(headers({ origin: 'http://127.0.0.1:8787', host: '127.0.0.1:8787' }), '*')).toBe(
      true,
    )
  })

  it('refuses another origin, even on the same site, unless listed; `*` lists none', () => {
    const other = headers({ origin: 'http://127.0.0.1:9999', host: '127.0.0.1:8787' })
    expect(fromSameOrigin(other, '*')).toBe(false)
    expect(fromSameOrigin(other, ['http://127.0.0.1:9999'])).toBe(true)
    expect(fromSameOrigin(headers({ origin: 'null', host: 'hearth.example' }), '*')).toBe(false)
  })

  it('without an Origin, trusts only Sec-Fetch-Site: same-origin', () => {
    expect(fromSameOrigin(headers({ host: 'hearth.example' }), '*')).toBe(false)
    expect(fromSameOrigin(headers({ host: 'hearth.example', 'sec-fetch-site': 'same-origin' }), '*')).toBe(
      true,
    )
    expect(fromSameOrigin(headers({ host: 'hearth.example', 'sec-fetch-site': 'same-site' }), '*')).toBe(
      false,
    )
  })
})
