import { describe, expect, it } from 'vitest'
import type { AiAction } from './chat-stream.ts'
import { applyChatEvent, turnsOf } from './chat-turns.ts'

const action = { id: 'a1', operation: 'budgets.move', status: 'pending' } as AiAction

describe('the chat thread', () => {
  it('grows an answer from its streamed events: text, a read done, a proposed action, the end', () => {
    let state = { turns: [], actions: {} } as ReturnType<typeof applyChatEvent>
    const events = [
      { event: 'turn.started', data: { conversationId: 'c', userMessageId: 'u', messageId: 'm' } },
      { event: 'message.delta', data: { messageId: 'm', text: 'You spent ' } },
      { event: 'tool.call', data: { messageId: 'm', callId: 't', name: 'reports_spending', args: {} } },
      { event: 'tool.result', data: { messageId: 'm', callId: 't', name: 'reports_spending', ok: true } },
      { event: 'message.delta', data: { messageId: 'm', text: '$5.00' } },
      { event: 'action.proposed', data: { messageId: 'm', action } },
    ] as const
    for (const e of events) state = applyChatEvent(state.turns, state.actions, e)
    expect(state.turns).toEqual([
      {
        id: 'm',
        role: 'assistant',
        text: 'You spent $5.00',
        status: 'streaming',
        reads: [{ callId: 't', name: 'reports_spending', args: {}, ok: true }],
        actionIds: ['a1'],
      },
    ])
    expect(state.actions.a1).toBe(action)
    state = applyChatEvent(state.turns, state.actions, {
      event: 'message.completed',
      data: { messageId: 'm', conversationId: 'c', content: 'You spent $5.00.' },
    })
    expect(state.turns[0]).toMatchObject({ text: 'You spent $5.00.', status: 'complete' })
  })

  it('marks a failed turn with its code, and a refused read with its message', () => {
    let state = applyChatEvent(
      [],
      {},
      {
        event: 'turn.started',
        data: { conversationId: 'c', userMessageId: 'u', messageId: 'm' },
      },
    )
    state = applyChatEvent(state.turns, state.actions, {
      event: 'tool.call',
      data: { messageId: 'm', callId: 't', name: 'budgets_get', args: {} },
    })
    state = applyChatEvent(state.turns, state.actions, {
      event: 'tool.result',
      data: {
        messageId: 'm',
        callId: 't',
        name: 'budgets_get',
        ok: false,
        error: { code: 'X', message: 'No.' },
      },
    })
    state = applyChatEvent(state.turns, state.actions, {
      event: 'error',
      data: { messageId: 'm', code: 'AI_PROVIDER_TIMEOUT', detail: 'Too slow.' },
    })
    expect(state.turns[0]).toMatchObject({
      status: 'failed',
      error: { code: 'AI_PROVIDER_TIMEOUT', detail: 'Too slow.' },
      reads: [{ ok: false, error: 'No.' }],
    })
  })

  it('reads a stored message: each call with its result, and the actions it proposed', () => {
    expect(
      turnsOf([
        {
          id: 'm',
          role: 'assistant',
          content: 'Done.',
          status: 'complete',
          parts: [
            { type: 'tool.call', id: 't', name: 'accounts_list', args: { status: 'open' } },
            { type: 'tool.result', id: 't', name: 'accounts_list', ok: true, result: {} },
            { type: 'action.proposed', actionId: 'a1' },
          ],
        },
      ]),
    ).toEqual([
      {
        id: 'm',
        role: 'assistant',
        text: 'Done.',
        status: 'complete',
        reads: [{ callId: 't', name: 'accounts_list', args: { status: 'open' }, ok: true }],
        actionIds: ['a1'],
      },
    ])
  })
})
