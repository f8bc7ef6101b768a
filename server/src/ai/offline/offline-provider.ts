import type { AssistantProvider, ChatRequest } from '../provider.ts'
import { answer } from './answers.ts'
import { intentClassifier } from './classifier.ts'
import { type Named, NameIndex } from './names.ts'
import { understand } from './understand.ts'

/** Rough tokens of a text, so the offline provider counts against the caps like a remote one. */
function tokensOf(text: string): number {
  return Math.ceil(text.length / 4)
}

/**
 * The built-in provider: no network, no model. A naive Bayes classifier trained on the corpus in
 * this folder reads the intent, chrono and the household's phrasings the period, fuse.js the names;
 * the answer comes from the engine's own queries through the same tools a remote model gets, and
 * a question it did not understand well enough is never answered as another.
 */
export const offlineProvider: AssistantProvider = {
  name: 'offline',
  async chat(request: ChatRequest, write) {
    const names: Named[] = await request.names()
    const understood = understand(request.message, request.today, new NameIndex(names), intentClassifier())
    const text = await answer(understood, request, names)
    const words = text.split(/(?<= )/)
    // A few chunks rather than one: clients render the stream as it comes.
    for (let i = 0; i < words.length && !request.signal.aborted; i += 12) {
      await write(words.slice(i, i + 12).join(''))
    }
    return { tokens: tokensOf(request.message) + tokensOf(text) }
  },
}
