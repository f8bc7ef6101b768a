import type { AiProviderConfig } from './config.ts'
import { offlineProvider } from './offline/offline-provider.ts'
import { openAiCompatibleProvider } from './openai-provider.ts'
import type { AssistantProvider } from './provider.ts'

/** The provider the configuration names. */
export function createProvider(config: AiProviderConfig): AssistantProvider {
  if (config.kind === 'offline') return offlineProvider
  return openAiCompatibleProvider(config)
}
