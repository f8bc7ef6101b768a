import type { AssistantProvider, ChatRequest } from '../provider.ts'
import { answerIntent } from './answers.ts'
import { intentOf } from './intents.ts'

/** Rough tokens of a text, so the offline provider counts against the caps like a remote one. */
function tokensOf(text: string): number {
  return Math.ceil(text.length / 4)
}

/**
 * The built-in provider: no network, no model. It reads a documented set of questions and
 * requests (docs/api/assistant.md), answers with figures from the engine's own queries through
 * the same tools a remote model gets, and proposes actions for the documented requests.
 */
export const offlineProvider: AssistantProvider = {
  name: 'offline',
  async chat(request: ChatRequest, write) {
    const answer = await answerIntent(intentOf(request.message), request)
    const words = answer.split(/(?<= )/)
    // A few chunks rather than one: clients render the stream as it comes.
    for (let i = 0; i < words.length && !request.signal.aborted; i += 12) {
      await write(words.slice(i, i + 12).join(''))
    }
    return { tokens: tokensOf(request.message) + tokensOf(answer) }
  },
}
