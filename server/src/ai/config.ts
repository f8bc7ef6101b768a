import type { AiCaps } from '@hearth/engine'

/** Which provider answers chat, and how to reach a remote one. */
export type AiProviderConfig =
  | { kind: 'offline' }
  | { kind: 'openai-compatible'; baseUrl: string; model: string; apiKey?: string; timeoutMs: number }

/** The assistant's settings (README, Configuration). */
export interface AiConfig {
  provider: AiProviderConfig
  caps: AiCaps
}

function count(env: NodeJS.ProcessEnv, name: string, fallback: number): number {
  const raw = env[name]
  if (raw === undefined || raw === '') return fallback
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0)
    throw new Error(`${name} must be a whole number, 0 for no cap, got "${raw}".`)
  return n
}

/** Reads the assistant's settings from the environment; a bad value stops start-up, naming it. */
export function loadAiConfig(env: NodeJS.ProcessEnv): AiConfig {
  const caps: AiCaps = {
    userDailyRequests: count(env, 'HEARTH_AI_USER_DAILY_REQUESTS', 200),
    userDailyTokens: count(env, 'HEARTH_AI_USER_DAILY_TOKENS', 200_000),
    householdMonthlyRequests: count(env, 'HEARTH_AI_HOUSEHOLD_MONTHLY_REQUESTS', 3_000),
    householdMonthlyTokens: count(env, 'HEARTH_AI_HOUSEHOLD_MONTHLY_TOKENS', 3_000_000),
  }
  const kind = env.HEARTH_AI_PROVIDER || 'offline'
  if (kind === 'offline') return { provider: { kind }, caps }
  if (kind !== 'openai-compatible') {
    throw new Error(`HEARTH_AI_PROVIDER must be offline or openai-compatible, got "${kind}".`)
  }
  const baseUrl = env.HEARTH_AI_BASE_URL
  const model = env.HEARTH_AI_MODEL
  if (!baseUrl || !model) {
    throw new Error('HEARTH_AI_PROVIDER=openai-compatible needs HEARTH_AI_BASE_URL and HEARTH_AI_MODEL.')
  }
  return {
    provider: {
      kind,
      baseUrl,
      model,
      apiKey: env.HEARTH_AI_API_KEY || undefined,
      timeoutMs: count(env, 'HEARTH_AI_TIMEOUT_MS', 30_000),
    },
    caps,
  }
}
