import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import Provider from 'oidc-provider'
import { afterAll } from 'vitest'

/** A real OpenID Connect provider (`oidc-provider`) on this machine, for the sign-in tests. */
export interface TestProvider {
  /** Its issuer URL, which the Hearth server under test is configured with. */
  issuer: string
  clientId: string
  clientSecret: string
  /** Its people by subject: what it says of each (an email, verified or not). */
  accounts: Map<string, { email: string; email_verified: boolean }>
  /** Who signs in at the next login prompt, which the provider answers at once. */
  signingIn: string
}

/**
 * Starts a provider for one test file: it listens at once (so servers can be configured with its
 * issuer), and is built at its first request with `redirectUris()`, the callbacks of the servers
 * started by then. Its login and consent prompts answer at once for whoever `signingIn` names.
 */
export async function useTestProvider(redirectUris: () => string[]): Promise<TestProvider> {
  let built: ((req: IncomingMessage, res: ServerResponse) => Promise<void>) | null = null
  const listener = createServer((req, res) => {
    built ??= build()
    built(req, res).catch(() => res.writeHead(500).end())
  })
  await new Promise<void>((resolve) => listener.listen(0, '127.0.0.1', resolve))
  const test: TestProvider = {
    issuer: `http://127.0.0.1:${(listener.address() as AddressInfo).port}`,
    clientId: 'hearth',
    clientSecret: 'a test secret of the hearth client',
    accounts: new Map(),
    signingIn: '',
  }
  // Built at its first request, when the servers whose callbacks it allows are listening.
  function build() {
    const provider = new Provider(test.issuer, {
      clients: [
        {
          client_id: test.clientId,
          client_secret: test.clientSecret,
          redirect_uris: redirectUris(),
          grant_types: ['authorization_code'],
          response_types: ['code'],
        },
      ],
      claims: { openid: ['sub'], email: ['email', 'email_verified'] },
      cookies: { keys: ['a cookie key for the test provider'] },
      features: { devInteractions: { enabled: false } },
      interactions: { url: (_ctx, interaction) => `/interaction/${interaction.uid}` },
      async findAccount(_ctx, sub) {
        const account = test.accounts.get(sub)
        return account && { accountId: sub, claims: async () => ({ sub, ...account }) }
      },
    })
    const callback = provider.callback()
    return async (req: IncomingMessage, res: ServerResponse) => {
      if (!req.url?.startsWith('/interaction/')) return callback(req, res)
      const details = await provider.interactionDetails(req, res)
      if (details.prompt.name === 'login') {
        return provider.interactionFinished(
          req,
          res,
          { login: { accountId: test.signingIn } },
          { mergeWithLastSubmission: false },
        )
      }
      const grant = new provider.Grant({ accountId: details.session!.accountId, clientId: test.clientId })
      grant.addOIDCScope('openid email profile')
      return provider.interactionFinished(
        req,
        res,
        { consent: { grantId: await grant.save() } },
        { mergeWithLastSubmission: true },
      )
    }
  }
  afterAll(() => new Promise<void>((resolve) => listener.close(() => resolve())))
  return test
}
