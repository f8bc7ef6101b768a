import { createHash, generateKeyPairSync, randomBytes, sign } from 'node:crypto'
import { isoBase64URL, isoCBOR } from '@simplewebauthn/server/helpers'

const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest()
const b64url = (data: Uint8Array) => isoBase64URL.fromBuffer(new Uint8Array(data))
const u32 = (n: number) => {
  const b = Buffer.alloc(4)
  b.writeUInt32BE(n)
  return b
}

/**
 * A passkey authenticator in software, for REST tests: one P-256 credential that answers WebAuthn
 * registration and sign-in options with real attestation ("none") and real ECDSA signatures, as a
 * browser hands them to `@simplewebauthn/browser`'s JSON. `counter` is what its next signature
 * carries; a test may hold it still to play a cloned key.
 */
export class SoftwareAuthenticator {
  readonly credentialId = randomBytes(32)
  private readonly keys = generateKeyPairSync('ec', { namedCurve: 'P-256' })
  counter = 1

  constructor(readonly origin: string) {}

  get id(): string {
    return b64url(this.credentialId)
  }

  /** What `navigator.credentials.create()` answers for `options`. */
  register(options: { challenge: string; rp: { id: string } }) {
    const jwk = this.keys.publicKey.export({ format: 'jwk' })
    const cose = new Map<number, number | Uint8Array>([
      [1, 2],
      [3, -7],
      [-1, 1],
      [-2, isoBase64URL.toBuffer(jwk.x!)],
      [-3, isoBase64URL.toBuffer(jwk.y!)],
    ])
    const idLength = Buffer.alloc(2)
    idLength.writeUInt16BE(this.credentialId.length)
    const authData = Buffer.concat([
      sha256(options.rp.id),
      Buffer.from([0x45]), // user present, user verified, attested credential data
      u32(0),
      Buffer.alloc(16), // AAGUID
      idLength,
      this.credentialId,
      Buffer.from(isoCBOR.encode(cose)),
    ])
    const attestationObject = isoCBOR.encode(
      new Map<string, unknown>([
        ['fmt', 'none'],
        ['attStmt', new Map()],
        ['authData', new Uint8Array(authData)],
      ]) as never,
    )
    const clientData = {
      type: 'webauthn.create',
      challenge: options.challenge,
      origin: this.origin,
      crossOrigin: false,
    }
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(Buffer.from(JSON.stringify(clientData))),
        attestationObject: b64url(attestationObject),
        transports: ['internal'],
      },
      clientExtensionResults: {},
    }
  }

  /** What `navigator.credentials.get()` answers for `options` (the counter moves unless held). */
  signIn(options: { challenge: string; rpId: string }, as: { origin?: string } = {}) {
    const authData = Buffer.concat([sha256(options.rpId), Buffer.from([0x05]), u32(this.counter)])
    const clientDataJSON = Buffer.from(
      JSON.stringify({
        type: 'webauthn.get',
        challenge: options.challenge,
        origin: as.origin ?? this.origin,
      }),
    )
    const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJSON)]), this.keys.privateKey)
    return {
      id: this.id,
      rawId: this.id,
      type: 'public-key',
      response: {
        clientDataJSON: b64url(clientDataJSON),
        authenticatorData: b64url(authData),
        signature: b64url(signature),
      },
      clientExtensionResults: {},
    }
  }
}
