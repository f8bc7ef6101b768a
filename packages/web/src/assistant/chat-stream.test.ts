import { describe, expect, it } from 'vitest'
import { eventStreamReader } from './chat-stream.ts'

describe('eventStreamReader', () => {
  it('answers each event once whole, however the stream is cut into chunks', () => {
    const body =
      'id: 1\nevent: message.delta\ndata: {"messageId":"m","text":"Hel"}\n\n' +
      'id: 2\r\nevent: message.delta\r\ndata: {"messageId":"m","text":"lo"}\r\n\r\n'
    for (const size of [1, 3, 7, body.length]) {
      const read = eventStreamReader()
      const events = []
      for (let i = 0; i < body.length; i += size) events.push(...read(body.slice(i, i + size)))
      expect(events.map((e) => e.event === 'message.delta' && e.data.text)).toEqual(['Hel', 'lo'])
    }
  })

  it('keeps a partial event until its blank line arrives', () => {
    const read = eventStreamReader()
    expect(read('event: error\ndata: {"messageId":"m","code":"X","detail":"d"}')).toEqual([])
    expect(read('\n\n')).toEqual([{ event: 'error', data: { messageId: 'm', code: 'X', detail: 'd' } }])
  })
})
