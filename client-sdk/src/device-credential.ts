import { HearthError } from './hearth-error.ts'

/** A signed-in device's tokens, as `POST /devices` and `POST /devices/refresh` answer them. */
export interface DeviceCredential {
  /** Sent as `Authorization: Bearer` and in sync's hello; short-lived. */
  accessToken: string
  /** Traded once for the next pair; a reuse signs the device out. */
  refreshToken: string
  /** When the access token ends (ISO 8601); without it the SDK renews only when refused. */
  accessTokenExpiresAt?: string
}

/** Where an app keeps its device's credential; `save` gets every rotated one, before it is used. */
export interface CredentialStore {
  load(): DeviceCredential | null | Promise<DeviceCredential | null>
  save(credential: DeviceCredential): void | Promise<void>
}

/** A credential given inline, with a callback that persists each rotated one (the old one stops working). */
export interface DeviceCredentialOptions extends DeviceCredential {
  onRotate?: (credential: DeviceCredential) => void | Promise<void>
}

/** How a device signs in: with an email and password, or an API key to exchange. */
export type DeviceSignIn =
  | { serverUrl: string; name: string; email: string; password: string }
  | { serverUrl: string; name: string; apiKey: string }

/** Signs a device in (`POST /devices`): its first credential, to hand `createHearth` and keep. */
export async function signInDevice(signIn: DeviceSignIn): Promise<DeviceCredential> {
  const { serverUrl, ...body } = signIn
  return credentialCall(`${serverUrl.replace(/\/$/, '')}/devices`, body)
}

/** Renews the access token this long before it ends: a fifth of its life, at most a minute. */
const MAX_MARGIN_MS = 60_000

/**
 * The credential a Hearth instance sends: an API key as it is, or a device credential it renews by
 * itself, ahead of the access token's end and after a refusal, one renewal at a time.
 */
export class Credentials {
  private credential: DeviceCredential | null = null
  private loaded: Promise<void> | null = null
  private renewing: Promise<void> | null = null
  private timer: ReturnType<typeof setTimeout> | null = null
  private closed = false
  /** Why the device can no longer renew (signed out, reused token); set for good. */
  ended: HearthError | null = null

  constructor(
    private readonly serverUrl: string | undefined,
    private readonly apiKey: string | undefined,
    private readonly device: DeviceCredentialOptions | CredentialStore | undefined,
  ) {
    if (apiKey && device) {
      throw new HearthError(
        'INVALID_OPTIONS',
        'Pass either token (an API key) or a device credential, not both.',
      )
    }
  }

  /** Whether a refused access token can be renewed (a device credential, not an API key). */
  get renewable(): boolean {
    return this.device !== undefined && this.ended === null
  }

  /** The token to send now, renewed first when it ends soon; undefined without one (a page's cookie speaks). */
  async token(): Promise<string | undefined> {
    if (!this.device) return this.apiKey
    await this.load()
    if (this.renewing) await this.renewing.catch(() => {})
    const credential = this.credential
    if (!credential) return undefined
    if (this.endsSoon(credential) && !this.ended) {
      await this.renew(credential.accessToken).catch(() => {})
    }
    return this.credential?.accessToken
  }

  /**
   * After the server refused `sent` (401): renews, unless another renewal already replaced it.
   * Answers whether there is a new token to try; false once the device was signed out.
   */
  async refused(sent: string | undefined): Promise<boolean> {
    if (!this.device || this.ended) return false
    await this.load()
    if (this.credential && this.credential.accessToken !== sent) return true
    try {
      await this.renew(sent)
    } catch {
      return false
    }
    return this.ended === null
  }

  /** A fetch with the credential, tried once more with a renewed token when refused with 401. */
  async fetch(url: string, init: RequestInit = {}): Promise<Response> {
    const send = (token: string | undefined) =>
      fetch(url, {
        ...init,
        headers: { ...(init.headers as object), ...(token && { authorization: `Bearer ${token}` }) },
      })
    const token = await this.token()
    const response = await send(token)
    if (response.status !== 401 || !(await this.refused(token))) return response
    return send(await this.token())
  }

  /** Stops the renewal timer; the credential stays as last saved. */
  close(): void {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private load(): Promise<void> {
    this.loaded ??= (async () => {
      const device = this.device!
      this.credential = 'load' in device ? await device.load() : device
      if (this.credential) this.schedule(this.credential)
    })()
    return this.loaded
  }

  private endsSoon(credential: DeviceCredential): boolean {
    if (!credential.accessTokenExpiresAt) return false
    return Date.parse(credential.accessTokenExpiresAt) - Date.now() <= this.margin(credential)
  }

  private margin(credential: DeviceCredential): number {
    const left = Date.parse(credential.accessTokenExpiresAt ?? '') - Date.now()
    return Number.isFinite(left) ? Math.min(MAX_MARGIN_MS, Math.max(0, left) / 5) : 0
  }

  /** Renews once the access token nears its end, while this instance is open. */
  private schedule(credential: DeviceCredential): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
    if (this.closed || !credential.accessTokenExpiresAt) return
    const at = Date.parse(credential.accessTokenExpiresAt) - this.margin(credential)
    this.timer = setTimeout(
      () => {
        this.timer = null
        this.renew(credential.accessToken).catch(() => {})
      },
      Math.max(0, at - Date.now()),
    )
    ;(this.timer as { unref?: () => void }).unref?.()
  }

  /** Trades the refresh token for the next pair, unless `stale` was replaced meanwhile. */
  private renew(stale: string | undefined): Promise<void> {
    this.renewing ??= (async () => {
      const current = this.credential
      if (!current || (stale !== undefined && current.accessToken !== stale) || !this.serverUrl) return
      let next: DeviceCredential
      try {
        next = await credentialCall(`${this.serverUrl.replace(/\/$/, '')}/devices/refresh`, {
          refreshToken: current.refreshToken,
        })
      } catch (error) {
        // A refusal ends the device for good; a network failure is tried again at the next need.
        if (error instanceof HearthError && error.status === 401) {
          this.ended = error
          this.close()
        }
        throw error
      }
      const device = this.device!
      await ('save' in device ? device.save(next) : device.onRotate?.(next))
      this.credential = next
      this.schedule(next)
    })().finally(() => {
      this.renewing = null
    })
    return this.renewing
  }
}

/** Posts to a device endpoint, and reads the credential it answers or the refusal. */
async function credentialCall(url: string, body: unknown): Promise<DeviceCredential> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })
  const answer = (await response.json().catch(() => null)) as
    | (DeviceCredential & { code?: string; detail?: string })
    | null
  if (!response.ok || !answer?.accessToken) {
    throw new HearthError(
      answer?.code ?? 'REQUEST_FAILED',
      answer?.detail ?? `The server answered ${response.status}.`,
      response.status,
    )
  }
  return {
    accessToken: answer.accessToken,
    refreshToken: answer.refreshToken,
    accessTokenExpiresAt: answer.accessTokenExpiresAt,
  }
}
