import { z } from 'zod'
import { SCOPES } from '../scopes.ts'
import { NameSchema, UlidSchema } from '../shared/schema.ts'

/** SHA-256 of a high-entropy secret (a session token, a link's code), hex; the secret never reaches the engine. */
export const SecretHashSchema = z.string().regex(/^[0-9a-f]{64}$/)

/** A password hash as the server's hasher writes it (server/src/auth/password-hash.ts). */
export const PasswordHashSchema = z
  .string()
  .regex(/^scrypt\$\d+\$\d+\$\d+\$[\w-]+\$[\w-]+$/)
  .max(400)

/** A new session: its token's hash, when it ends, and where it signed in from. */
export const CreateSessionArgsSchema = z.strictObject({
  id: UlidSchema,
  tokenHash: SecretHashSchema,
  prefix: z.string().min(4).max(16),
  /** The device's name as its person calls it ("Firefox on Mac"). */
  name: NameSchema,
  userAgent: z.string().max(500).nullish(),
  clientAddress: z.string().max(100).nullish(),
  /** The absolute end: the session is refused after it, however busy. */
  expiresAt: z.iso.datetime({ offset: true }),
  /** The idle end: the session is refused this many seconds after its last use. */
  idleSeconds: z.int().positive(),
  /** The session this sign-in replaces (rotation): revoked in the same transaction. */
  replaces: z.string().max(64).nullish(),
  /**
   * An API key exchanged for a session: the session carries at most the key's scopes, never the
   * wider rights of the key's person (a narrow key stays narrow in the app).
   */
  withinScopes: z.array(z.enum(SCOPES)).max(SCOPES.length).optional(),
})
export type CreateSessionArgs = z.output<typeof CreateSessionArgsSchema>

export const SessionIdArgsSchema = z.strictObject({ id: z.string().min(1).max(64) })

export const RevokeAllSessionsArgsSchema = z.strictObject({
  /** A session left signed in (the caller's own); every other one ends. */
  exceptId: z.string().max(64).nullish(),
})

export const SetPasswordArgsSchema = z.strictObject({
  hash: PasswordHashSchema,
  /** The caller's own session, which stays signed in; every other session of the user ends. */
  keepSessionId: z.string().max(64).nullish(),
})

/** A setup or reset link for the acting user (first start, the CLI). */
export const IssueSignInLinkArgsSchema = z.strictObject({
  id: UlidSchema,
  purpose: z.enum(['setup', 'reset']),
  codeHash: SecretHashSchema,
  expiresAt: z.iso.datetime({ offset: true }),
})

/** An owner's reset link for a member of their household. */
export const CreateResetLinkArgsSchema = z.strictObject({
  id: UlidSchema,
  userId: z.string().min(1).max(64),
  codeHash: SecretHashSchema,
  expiresAt: z.iso.datetime({ offset: true }),
})

/** A passkey the server verified from its registration answer: what is kept of it. */
export const NewPasskeyArgsSchema = z.strictObject({
  id: UlidSchema,
  name: NameSchema,
  credentialId: z.string().min(1).max(1400),
  publicKey: z.string().min(1).max(4000),
  counter: z.int().nonnegative(),
  transports: z.array(z.string().max(40)).max(10),
})

/**
 * A passkey made at a link's or an invitation's redeem, with the challenge its registration
 * answered: taken in the redeem's transaction, so the passkey, the link or invitation used and the
 * session all happen, or none does.
 */
export const RedeemPasskeyArgsSchema = NewPasskeyArgsSchema.extend({ challenge: z.string().min(16).max(200) })

/** Keeps the challenge of a passkey to be made at a link's or an invitation's redeem. */
export const RedeemPasskeyOptionsArgsSchema = z.strictObject({
  codeHash: SecretHashSchema,
  challenge: z.string().min(16).max(200),
  expiresAt: z.iso.datetime({ offset: true }),
})

/** Sets a password or adds a passkey with a link, and signs in: the link's user, once. */
export const RedeemSignInLinkArgsSchema = z.strictObject({
  codeHash: SecretHashSchema,
  /** One of the two: the new password's hash, or the passkey made for the link. */
  passwordHash: PasswordHashSchema.optional(),
  passkey: RedeemPasskeyArgsSchema.optional(),
  /** The email to sign in with, when the user has none yet (the first owner has none). */
  email: z.email().max(320).nullish(),
  name: NameSchema.optional(),
  session: CreateSessionArgsSchema.omit({ replaces: true }),
})

/** A device signing in: its name, its first access token's hash and its first refresh token's hash. */
export const CreateDeviceArgsSchema = z.strictObject({
  id: UlidSchema,
  /** The device's name as its person calls it ("Ada's phone"). */
  name: NameSchema,
  accessTokenHash: SecretHashSchema,
  accessPrefix: z.string().min(4).max(16),
  /** When this access token stops working; the device refreshes before. */
  accessExpiresAt: z.iso.datetime({ offset: true }),
  refreshTokenHash: SecretHashSchema,
  /** The device can no longer refresh this many seconds after its last use. */
  idleSeconds: z.int().positive(),
  userAgent: z.string().max(500).nullish(),
  clientAddress: z.string().max(100).nullish(),
  /** A key or session exchanged for this device: the device gets no scope it lacked. */
  withinScopes: z.array(z.enum(SCOPES)).max(SCOPES.length).optional(),
})

/** A device's refresh: the token it presents, and the next access and refresh tokens' hashes. */
export const RefreshDeviceArgsSchema = z.strictObject({
  refreshTokenHash: SecretHashSchema,
  nextRefreshTokenHash: SecretHashSchema,
  accessTokenHash: SecretHashSchema,
  accessPrefix: z.string().min(4).max(16),
  accessExpiresAt: z.iso.datetime({ offset: true }),
  clientAddress: z.string().max(100).nullish(),
})

/** An identity at an OpenID Connect provider that the server verified, to link to the acting user. */
export const LinkOidcIdentityArgsSchema = z.strictObject({
  issuer: z.url().max(500),
  subject: z.string().min(1).max(255),
  email: z.email().max(320).nullish(),
  /** Replace the person's identity at this provider (an explicit link); otherwise a second one is refused. */
  replace: z.boolean().optional(),
})

export const OidcIssuerArgsSchema = z.strictObject({ issuer: z.url().max(500) })

/** Issues a link that verifies the caller's current email, to be mailed to it. */
export const IssueEmailVerificationArgsSchema = z.strictObject({
  id: UlidSchema,
  codeHash: SecretHashSchema,
  expiresAt: z.iso.datetime({ offset: true }),
})

/** Verifies the email a mailed link was sent to: the link's user, once. */
export const VerifyEmailArgsSchema = z.strictObject({
  codeHash: SecretHashSchema,
})
