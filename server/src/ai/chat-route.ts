import {
  type AiCaps,
  ChatBodySchema,
  callerToday,
  EngineError,
  finishTurn,
  householdNames,
  type MessagePart,
  newUlid,
  operations,
  parseArgs,
  readAiUsage,
  requireAiConsent,
  runQuery,
  type Store,
  startTurn,
  type Turn,
  toolsFor,
} from '@hearth/engine'
import { OpenAPIHono } from '@hono/zod-openapi'
import { type AppEnv, householdContext } from '../http/env.ts'
import { problem } from '../http/problem.ts'
import { apiRoute, jsonBody, jsonResponse, z } from '../http/route.ts'
import { type AssistantProvider, ProviderError } from './provider.ts'
import { eventStream } from './sse.ts'
import { runTool } from './tool-runner.ts'

const chat = apiRoute({
  method: 'post',
  path: '/households/{householdId}/ai/chat',
  operationId: 'ai.chat',
  tags: ['Assistant'],
  summary: 'Chat with the assistant (one streamed turn)',
  description:
    'Streams one turn as `text/event-stream`: `turn.started`, then `message.delta`, `tool.call`, ' +
    '`tool.result`, `action.proposed`, and finally `message.completed` or `error` (docs/api/assistant.md). ' +
    'Refuses with 403 `AI_CONSENT_REQUIRED` until your ai_processing consent is granted, 429 ' +
    '`AI_CAP_REACHED` (with Retry-After) past a cap, 409 `CONVERSATION_STOPPED` on a stopped ' +
    'conversation, and 400 `IDEMPOTENCY_KEY_NOT_SUPPORTED` with an Idempotency-Key: a turn is not replayed.',
  scope: 'ai:chat',
  request: {
    params: z.object({ householdId: z.string().meta({ description: 'A household id, or `current`.' }) }),
    body: jsonBody(ChatBodySchema),
  },
  responses: {
    201: {
      description: 'The turn, as Server-Sent Events.',
      content: { 'text/event-stream': { schema: z.string() } },
    },
    409: { description: 'The conversation was stopped: `CONVERSATION_STOPPED`.' },
    429: { description: 'A daily or monthly cap is reached: `AI_CAP_REACHED`.' },
  },
})

const usage = apiRoute({
  method: 'get',
  path: '/households/{householdId}/ai/usage',
  operationId: 'ai.usage',
  tags: ['Assistant'],
  summary: 'Your assistant usage today, and the caps',
  description: 'Requests and tokens you used today and the household this month (UTC), with the caps.',
  scope: 'ai:tools',
  request: {
    params: z.object({ householdId: z.string().meta({ description: 'A household id, or `current`.' }) }),
  },
  responses: { 200: jsonResponse(z.record(z.string(), z.unknown()), 'Usage and caps.') },
})

/** What the assistant routes need from the server. */
export interface AssistantRouteOptions {
  store: Store
  provider: AssistantProvider
  caps: AiCaps
}

/** The streamed chat and the usage report: the assistant's two hand-written routes. */
export function assistantStreamRoutes({ store, provider, caps }: AssistantRouteOptions) {
  return new OpenAPIHono<AppEnv>()
    .openapi(usage, async (c) => c.json(await readAiUsage(store.db, householdContext(c.var), caps), 200))
    .openapi(chat, async (c) => {
      if (c.req.header('idempotency-key') !== undefined) {
        return problem(c, 400, 'IDEMPOTENCY_KEY_NOT_SUPPORTED', {
          detail: 'A chat turn streams and is never replayed; send it without an Idempotency-Key.',
        })
      }
      const ctx = householdContext(c.var)
      const body = parseArgs(ChatBodySchema, c.req.valid('json'))
      // Consent, caps and the turn's first rows in one transaction, beside the two reads the
      // answer needs: on PostgreSQL, one wait for the first event instead of five in a row.
      let turn: Turn
      let household: { baseCurrency: string }
      let today: string
      try {
        ;[turn, household, today] = await Promise.all([
          startTurn(store.db, ctx, body, newUlid(), caps),
          runQuery(
            store.db,
            operations.households.get,
            {},
            { ...ctx, scopes: ['read:households'] },
          ) as Promise<{
            baseCurrency: string
          }>,
          callerToday(store.db, ctx),
        ])
      } catch (error) {
        if (error instanceof EngineError && error.status === 429) {
          const { retryAfter, resetsAt } = error.extra as { retryAfter: number; resetsAt: string }
          return problem(c, 429, error.code, {
            detail: error.message,
            retryAfter,
            resetsAt,
            headers: { 'retry-after': String(retryAfter) },
          })
        }
        throw error
      }
      const abort = new AbortController()
      const { body: stream, writer } = eventStream(() => abort.abort())
      const parts: MessagePart[] = []
      let content = ''
      const messageId = turn.assistantMessageId
      const tools = toolsFor(ctx, () => operations.byName)

      const run = async () => {
        let status: 'complete' | 'interrupted' | 'failed' = 'complete'
        let tokens = 0
        try {
          await writer.event('turn.started', {
            conversationId: turn.conversation.id,
            userMessageId: turn.userMessageId,
            messageId,
          })
          // The headers and this first event leave before the answer's queries run: the embedded
          // store computes on this thread, and a long query would hold the event back. Waits until
          // the server has taken the event from the body (at most half a second for a stalled one).
          await writer.sent(500)
          const answer = await provider.chat(
            {
              message: body.message,
              history: turn.history,
              tools,
              today,
              currency: household.baseCurrency,
              signal: abort.signal,
              reportToolError: async (name, args, message) => {
                const callId = newUlid()
                const error = { code: 'INVALID_TOOL_CALL', message }
                await writer.event('tool.call', { messageId, callId, name, args })
                await writer.event('tool.result', { messageId, callId, name, ok: false, error })
                parts.push({ type: 'tool.call', id: callId, name, args })
                parts.push({ type: 'tool.result', id: callId, name, ok: false, result: error })
              },
              read: (operation, args) =>
                runQuery(store.db, operations.byName.get(operation) as never, args, ctx),
              names: () =>
                householdNames(store.db, ctx.householdId, {
                  categories: ctx.scopes.includes('read:categories'),
                  payees: ctx.scopes.includes('read:payees'),
                  accounts: ctx.scopes.includes('read:accounts'),
                  tags: ctx.scopes.includes('read:tags'),
                }),
              runTool: async (name, args) => {
                // Consent is read again before every tool: withdrawing it stops a turn under way.
                await requireAiConsent(store.db, ctx.householdId, ctx.userId)
                return runTool(
                  {
                    store,
                    ctx,
                    tools,
                    conversationId: turn.conversation.id,
                    messageId,
                    stream: writer,
                    record: (part) => parts.push(part as MessagePart),
                  },
                  name,
                  args,
                )
              },
            },
            async (text) => {
              content += text
              await writer.event('message.delta', { messageId, text })
            },
          )
          tokens = answer.tokens
          if (abort.signal.aborted) status = 'interrupted'
        } catch (error) {
          status = abort.signal.aborted ? 'interrupted' : 'failed'
          if (error instanceof ProviderError) tokens = error.tokens
          const code =
            error instanceof ProviderError
              ? error.code
              : error instanceof EngineError
                ? error.code
                : 'AI_PROVIDER_FAILED'
          const detail =
            error instanceof Error && (error instanceof ProviderError || error instanceof EngineError)
              ? error.message
              : 'The assistant could not finish this answer; nothing was changed.'
          if (!(error instanceof ProviderError || error instanceof EngineError))
            c.var.logger.error({ err: error }, 'chat turn failed')
          await writer.event('error', { messageId, code, detail })
        }
        await finishTurn(store.db, ctx, messageId, { content, parts, status, tokens })
        if (status === 'complete') {
          await writer.event('message.completed', {
            messageId,
            conversationId: turn.conversation.id,
            content,
            status,
            tokens,
          })
        }
        writer.close()
      }
      void run().catch((error) => {
        c.var.logger.error({ err: error }, 'chat turn bookkeeping failed')
        writer.close()
      })
      return c.body(stream, 201, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache',
        'x-accel-buffering': 'no',
        // Said up front, so the Node adapter writes the headers and each event as it comes
        // rather than first waiting a timer's turn for more of the body to size it.
        'transfer-encoding': 'chunked',
      })
    })
}
