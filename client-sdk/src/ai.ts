import type { Credentials } from './device-credential.ts'
import { HearthError } from './hearth-error.ts'

/** A member's `ai_processing` consent, as the server keeps it. */
export interface AiConsent {
  purpose: 'ai_processing'
  granted: boolean
  grantedAt: string | null
}

/** The assistant calls an app makes through the SDK; they talk to the server, where chat runs. */
export interface HearthAi {
  /** Your `ai_processing` consent in this household. */
  consent(): Promise<AiConsent>
  /** Grants it; the assistant's chat needs it. */
  grantConsent(): Promise<AiConsent>
  /** Withdraws it; chat is refused from the next request on. */
  withdrawConsent(): Promise<AiConsent>
}

/** The consent calls over REST, for the household this replica holds. */
export function hearthAi(
  serverUrl: string | undefined,
  credentials: Credentials,
  householdId: string,
): HearthAi {
  const call = async (method: 'GET' | 'POST' | 'DELETE'): Promise<AiConsent> => {
    if (!serverUrl) {
      throw new HearthError('SERVER_REQUIRED', 'AI consent lives on the server: open Hearth with serverUrl.')
    }
    const url = `${serverUrl.replace(/\/$/, '')}/households/${householdId}/ai/consent`
    const response = await credentials.fetch(url, { method })
    const body = (await response.json().catch(() => null)) as
      | (AiConsent & { code?: string; detail?: string })
      | null
    if (response.ok && body)
      return { purpose: body.purpose, granted: body.granted, grantedAt: body.grantedAt }
    throw new HearthError(
      body?.code ?? 'REQUEST_FAILED',
      body?.detail ?? `The server answered ${response.status}.`,
      response.status,
    )
  }
  return {
    consent: () => call('GET'),
    grantConsent: () => call('POST'),
    withdrawConsent: () => call('DELETE'),
  }
}
