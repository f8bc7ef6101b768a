import type { ColumnType, Generated } from 'kysely'

type Timestamp = ColumnType<Date, Date | string | undefined, Date | string>

/** A user's password: an scrypt hash (`scrypt$N$r$p$salt$hash`), never the password. */
export interface PasswordsTable {
  user_id: string
  hash: string
  created_at: Timestamp
  updated_at: Timestamp
}

/** A one-time link to set a password: at first start (`setup`) or after a reset; only the code's SHA-256 is kept. */
export interface SignInLinksTable {
  id: string
  user_id: string
  purpose: 'setup' | 'reset'
  code_hash: string
  created_by: string | null
  created_at: Timestamp
  expires_at: Timestamp
  used_at: Date | null
}

/** A link mailed to verify a person's email (migration 0049); only the code's SHA-256 is kept. */
export interface EmailVerificationsTable {
  id: string
  user_id: string
  /** The email it was mailed to: it verifies that one only. */
  email: string
  code_hash: string
  created_at: Timestamp
  expires_at: Timestamp
  used_at: Date | null
}

/** A user's TOTP second factor: the secret sealed, active once confirmed, and the last step used. */
export interface TotpFactorsTable {
  user_id: string
  secret_sealed: string
  created_at: Timestamp
  confirmed_at: Date | null
  /** The RFC 6238 step of the last code accepted (int8, read as a number). */
  last_step: ColumnType<string | number | null, number | null | undefined, number | null>
}

/** A recovery code of a TOTP factor, as its SHA-256; usable once. */
export interface RecoveryCodesTable {
  id: string
  user_id: string
  code_hash: string
  created_at: Timestamp
  used_at: Date | null
}

/** A refresh token a device was given (sign-in/devices.ts); only its SHA-256 is kept, and it works once. */
export interface DeviceRefreshTokensTable {
  token_hash: string
  /** The device: its `api_keys` row of kind `device`. */
  key_id: string
  created_at: Timestamp
  used_at: Date | null
}

/** A WebAuthn credential (a passkey) of a user. */
export interface PasskeysTable {
  id: string
  user_id: string
  /** The credential's id, base64url, as the authenticator names it. */
  credential_id: string
  /** The COSE public key, base64url. */
  public_key: string
  /** The signature counter last seen (int8, read as a number). */
  counter: ColumnType<string | number, number, number>
  /** The authenticator's transports, comma-separated (`internal,hybrid`). */
  transports: string
  name: string
  created_at: Timestamp
  last_used_at: Date | null
}

/** A person's identity at an OpenID Connect provider, which signs them in (sign-in/oidc-identities.ts). */
export interface OidcIdentitiesTable {
  issuer: string
  /** The provider's `sub` claim: stable for the person at that issuer. */
  subject: string
  user_id: string
  /** The email the provider vouched for when linked, to show on the person's settings. */
  email: string | null
  created_at: Timestamp
  last_used_at: Date | null
}

/** A WebAuthn challenge handed out, until it is taken (once) or expires. */
export interface WebauthnChallengesTable {
  challenge: string
  /** `redeem`: a registration answered at a link's or an invitation's redeem (migration 0045). */
  purpose: 'register' | 'sign_in' | 'redeem'
  user_id: string | null
  expires_at: Timestamp
  /** A redeem's: the SHA-256 of the link's or invitation's code it was handed out for. */
  code_hash: Generated<string | null>
  /** An invitation's redeem: the id chosen ahead for the person it will make. */
  new_user_id: Generated<string | null>
}

/** The sign-in domain's tables; all stay on the server. */
export interface SignInTables {
  passwords: PasswordsTable
  sign_in_links: SignInLinksTable
  email_verifications: EmailVerificationsTable
  totp_factors: TotpFactorsTable
  recovery_codes: RecoveryCodesTable
  passkeys: PasskeysTable
  webauthn_challenges: WebauthnChallengesTable
  device_refresh_tokens: DeviceRefreshTokensTable
  oidc_identities: OidcIdentitiesTable
}
