import { createOpenAICompatible } from '@ai-sdk/openai-compatible'
import { dynamicTool, jsonSchema, type ModelMessage, stepCountIs, streamText, type ToolSet } from 'ai'
import type { AiProviderConfig } from './config.ts'
import { type AssistantProvider, type ChatRequest, ProviderError } from './provider.ts'

/** The most model steps (a tool round is one) one turn may take. */
const MAX_STEPS = 8

/**
 * What the model is told before the conversation: the figures it must take from which tool (the
 * same definitions the offline provider answers with, docs/api/assistant.md), and that it answers
 * only the question asked, from the tools, or says what it could not answer.
 */
export function systemPrompt(req: ChatRequest): string {
  return [
    "You are Hearth's household finance assistant. Answer from the household's own data, which you read with the tools; never guess a figure.",
    `Today is ${req.today} (the member's local day). Money is integer cents in decimal strings; the base currency is ${req.currency}. Show amounts in currency units.`,
    'Spending is reports_spending netSpentCents: money out less refunds, outside income categories. A headline total must equal the sum of the lines you show beneath it.',
    'Income is reports_spending earnedCents: income categories only; a refund is not earnings.',
    'Upcoming bills come from recurrences_upcoming; recurring payments from recurrences_list; budget figures from budgets_get; a month forecast from forecasts_get.',
    'Answer only the question asked. If you cannot tell what was asked, which period or which category, payee or account, say what you did not understand instead of answering another question.',
    "Decline politely anything that is not about this household's money (you cannot send money, manage members, invitations or keys, or give advice).",
    'Write tools never change anything: they create a pending action the member confirms in the app. Say so when you use one.',
    'If a tool answers with an error, correct the arguments and try again, or explain what is missing.',
  ].join('\n')
}

/**
 * A provider for any OpenAI-compatible chat-completions endpoint (OpenAI, Ollama, llama.cpp,
 * vLLM, LM Studio), on the Vercel AI SDK. The same tools as the offline provider; a tool's
 * refusal (arguments that fail the operation's schema, say) goes back to the model as the tool's
 * output, and so does a call whose arguments are not even JSON.
 */
export function openAiCompatibleProvider(
  config: Extract<AiProviderConfig, { kind: 'openai-compatible' }>,
): AssistantProvider {
  const provider = createOpenAICompatible({
    name: 'hearth-remote',
    baseURL: config.baseUrl,
    apiKey: config.apiKey,
    includeUsage: true,
  })
  const model = provider.chatModel(config.model)
  return {
    name: 'openai-compatible',
    async chat(req, write) {
      const tools: ToolSet = {}
      for (const t of req.tools) {
        tools[t.name] = dynamicTool({
          description: t.description,
          inputSchema: jsonSchema(t.inputSchema as never),
          execute: async (input) => {
            const outcome = await req.runTool(t.name, input)
            return outcome.ok ? outcome.result : { error: outcome.error }
          },
        })
      }
      const messages: ModelMessage[] = [
        ...req.history.map((m) => ({ role: m.role, content: m.content }) as ModelMessage),
        { role: 'user', content: req.message },
      ]
      const timeout = AbortSignal.timeout(config.timeoutMs)
      const result = streamText({
        model,
        system: systemPrompt(req),
        messages,
        tools,
        stopWhen: stepCountIs(MAX_STEPS),
        maxRetries: 0,
        abortSignal: AbortSignal.any([req.signal, timeout]),
        // Errors arrive as `error` parts of the stream below; the SDK's own console log is noise.
        onError: () => {},
      })
      // Tokens as the provider reports them, step by step: a turn cut short (the client left, a
      // timeout, a failure) still counts the steps that finished.
      let tokens = 0
      const timedOut = () =>
        new ProviderError(
          'AI_PROVIDER_TIMEOUT',
          `The AI provider did not answer within ${config.timeoutMs} ms.`,
          tokens,
        )
      try {
        for await (const part of result.fullStream) {
          if (part.type === 'text-delta') await write(part.text)
          // Our tools never throw, so a tool error is a call that never ran (arguments not JSON, an
          // unknown tool); the SDK sends the error back to the model in the next step.
          else if (part.type === 'tool-error')
            await req.reportToolError(part.toolName, part.input ?? null, String(part.error))
          else if (part.type === 'error') throw part.error
          else if (part.type === 'finish-step') tokens += part.usage.totalTokens ?? 0
        }
      } catch (error) {
        if (timeout.aborted) throw timedOut()
        // The client left: the request to the model is aborted, and the turn ends with what it has.
        if (req.signal.aborted) return { tokens }
        throw new ProviderError(
          'AI_PROVIDER_FAILED',
          `The AI provider failed: ${(error as Error).message ?? error}`.slice(0, 500),
          tokens,
        )
      }
      if (timeout.aborted && !req.signal.aborted) throw timedOut()
      return { tokens }
    },
  }
}
