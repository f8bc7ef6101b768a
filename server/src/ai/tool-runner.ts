import {
  type AssistantTool,
  EngineError,
  type HouseholdContext,
  newUlid,
  operationOfTool,
  operations,
  runMutation,
  runQuery,
  type Store,
  type toAction,
} from '@hearth/engine'
import type { ToolOutcome } from './provider.ts'
import type { StreamWriter } from './sse.ts'

/** What a tool run needs: the store, the member, the turn it belongs to, and the stream. */
export interface ToolRunContext {
  store: Store
  ctx: HouseholdContext
  tools: AssistantTool[]
  conversationId: string | null
  messageId: string | null
  stream: StreamWriter | null
  /** Receives each call, result and proposed action, for the stored message. */
  record?(part: Record<string, unknown>): void
}

function refusal(error: unknown): ToolOutcome {
  if (error instanceof EngineError && error.status < 500) {
    return { ok: false, error: { code: error.code, message: error.message, errors: error.errors } }
  }
  throw error
}

/**
 * Runs one tool as the member: a read answers at once through the registry query; a write only
 * proposes an action (`aiActions.propose`), which changes nothing until the member confirms it.
 * Arguments that fail the operation's schema come back as a refusal for the model, never reach
 * the ledger. Each call and its outcome go out on the stream.
 */
export async function runTool(
  run: ToolRunContext,
  name: string,
  args: unknown,
  summary?: string,
): Promise<ToolOutcome> {
  const callId = newUlid()
  const tool = run.tools.find((t) => t.name === name)
  await run.stream?.event('tool.call', { messageId: run.messageId, callId, name, args })
  run.record?.({ type: 'tool.call', id: callId, name, args })
  let outcome: ToolOutcome
  try {
    if (!tool) {
      outcome = { ok: false, error: { code: 'UNKNOWN_TOOL', message: `${name} is not a tool you may use.` } }
    } else if (tool.kind === 'read') {
      const op = operations.byName.get(operationOfTool(name))!
      outcome = { ok: true, result: await runQuery(run.store.db, op as never, args ?? {}, run.ctx) }
    } else {
      const { result } = await runMutation(
        run.store.db,
        operations.aiActions.propose,
        {
          id: newUlid(),
          operation: tool.operation,
          args: (args ?? {}) as Record<string, unknown>,
          summary: summary ?? `${tool.description} (${tool.operation})`,
          conversationId: run.conversationId,
        },
        run.ctx,
      )
      const action = result as ReturnType<typeof toAction>
      outcome = { ok: true, result: { actionId: action.id, status: action.status, preview: action.preview } }
      await run.stream?.event('action.proposed', { messageId: run.messageId, action })
      run.record?.({ type: 'action.proposed', actionId: action.id })
    }
  } catch (error) {
    outcome = refusal(error)
  }
  await run.stream?.event('tool.result', {
    messageId: run.messageId,
    callId,
    name,
    ok: outcome.ok,
    ...(outcome.ok ? { result: outcome.result } : { error: outcome.error }),
  })
  run.record?.({
    type: 'tool.result',
    id: callId,
    name,
    ok: outcome.ok,
    result: outcome.ok ? outcome.result : outcome.error,
  })
  return outcome
}
