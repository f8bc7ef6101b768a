/**
 * The few parts of `oidc-provider` (v9, which ships no types) that the OpenID Connect sign-in test
 * drives: a provider, its request handler, interactions and grants.
 */
declare module 'oidc-provider' {
  import type { IncomingMessage, ServerResponse } from 'node:http'

  interface Account {
    accountId: string
    claims(): Promise<Record<string, unknown>>
  }

  interface Interaction {
    uid: string
    prompt: { name: string }
    session?: { accountId: string }
  }

  interface ProviderConfiguration {
    clients: Record<string, unknown>[]
    claims?: Record<string, string[]>
    cookies?: { keys: string[] }
    features?: Record<string, unknown>
    interactions?: { url(ctx: unknown, interaction: Interaction): string }
    findAccount(ctx: unknown, sub: string): Promise<Account | undefined>
  }

  class Grant {
    constructor(options: { accountId: string; clientId: string })
    addOIDCScope(scope: string): void
    save(): Promise<string>
  }

  export default class Provider {
    constructor(issuer: string, configuration: ProviderConfiguration)
    Grant: typeof Grant
    callback(): (req: IncomingMessage, res: ServerResponse) => void
    interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<Interaction>
    interactionFinished(
      req: IncomingMessage,
      res: ServerResponse,
      result: Record<string, unknown>,
      options?: { mergeWithLastSubmission?: boolean },
    ): Promise<void>
  }
}
