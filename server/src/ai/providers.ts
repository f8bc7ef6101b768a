import type { AiProviderConfig } from './config.ts'
import type { AssistantProvider } from './provider.ts'

/**
 * The provider the configuration names. Its code loads at the first chat, not at start: the
 * offline provider's NLP model and chrono, or the AI SDK, were about half a second of every
 * server's start, assistant used or not.
 */
export function createProvider(config: AiProviderConfig): AssistantProvider {
  let loaded: Promise<AssistantProvider> | undefined
  const load = () =>
    (loaded ??=
      config.kind === 'offline'
        ? import('./offline/offline-provider.ts').then((m) => m.offlineProvider)
        : import('./openai-provider.ts').then((m) => m.openAiCompatibleProvider(config)))
  return {
    name: config.kind,
    chat: async (request, write) => (await load()).chat(request, write),
  }
}
