import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

/**
 * One streamed reply of the fake model: text, tool calls (arguments as raw text), a hang, or a
 * reply held halfway: `before` streams at once, then nothing until `release` resolves, then
 * `after` and the end (with usage). A held reply whose client hangs up counts in `abandoned`.
 */
export type FakeReply =
  | { text: string }
  | { toolCalls: { name: string; arguments: string }[] }
  | { hang: true }
  | { garbage: string }
  | { held: { before: string; after: string; release: Promise<void> } }

/** An OpenAI-compatible chat-completions server on loopback that streams scripted replies. */
export interface FakeOpenAi {
  url: string
  /** Every request body it received, in order. */
  requests: any[]
  /** Chooses the reply to a request from its messages. */
  script: (messages: any[]) => FakeReply
  /** Held replies whose client closed the request before the reply ended. */
  abandoned: number
  close(): Promise<void>
}

function chunk(delta: Record<string, unknown>, finish: string | null = null): string {
  return `data: ${JSON.stringify({
    id: 'chatcmpl-1',
    object: 'chat.completion.chunk',
    created: 1,
    model: 'fake',
    choices: [{ index: 0, delta, finish_reason: finish }],
  })}\n\n`
}

/** The usage chunk that ends every reply: 50 tokens. */
function usage(): string {
  return `data: ${JSON.stringify({ id: 'chatcmpl-1', object: 'chat.completion.chunk', created: 1, model: 'fake', choices: [], usage: { prompt_tokens: 40, completion_tokens: 10, total_tokens: 50 } })}\n\n`
}

/** Starts the fake on 127.0.0.1, port 0. */
export async function startFakeOpenAi(): Promise<FakeOpenAi> {
  const fake: FakeOpenAi = {
    url: '',
    requests: [],
    script: () => ({ text: 'ok' }),
    abandoned: 0,
    close: async () => {},
  }
  const server: Server = createServer((req, res) => {
    let raw = ''
    req.on('data', (c) => {
      raw += c
    })
    req.on('end', () => {
      const body = JSON.parse(raw)
      fake.requests.push(body)
      const reply = fake.script(body.messages)
      if ('hang' in reply) return
      if ('garbage' in reply) {
        res.writeHead(200, { 'content-type': 'text/event-stream' })
        res.end(reply.garbage)
        return
      }
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      res.write(chunk({ role: 'assistant', content: '' }))
      if ('held' in reply) {
        const { before, after, release } = reply.held
        res.write(chunk({ content: before }))
        let gone = false
        res.once('close', () => {
          if (res.writableEnded) return
          gone = true
          fake.abandoned += 1
        })
        void release.then(() => {
          if (gone) return
          res.write(chunk({ content: after }))
          res.write(chunk({}, 'stop'))
          res.write(usage())
          res.end('data: [DONE]\n\n')
        })
        return
      }
      if ('text' in reply) {
        for (const piece of reply.text.match(/.{1,8}/gs) ?? []) res.write(chunk({ content: piece }))
        res.write(chunk({}, 'stop'))
      } else {
        reply.toolCalls.forEach((call, index) => {
          res.write(
            chunk({
              tool_calls: [
                {
                  index,
                  id: `call_${fake.requests.length}_${index}`,
                  type: 'function',
                  function: { name: call.name, arguments: '' },
                },
              ],
            }),
          )
          const half = Math.floor(call.arguments.length / 2)
          for (const part of [call.arguments.slice(0, half), call.arguments.slice(half)]) {
            res.write(chunk({ tool_calls: [{ index, function: { arguments: part } }] }))
          }
        })
        res.write(chunk({}, 'tool_calls'))
      }
      res.write(usage())
      res.end('data: [DONE]\n\n')
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`
  fake.close = () =>
    new Promise<void>((resolve) => {
      server.closeAllConnections()
      server.close(() => resolve())
    })
  return fake
}
