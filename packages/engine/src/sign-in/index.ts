export { type DeviceRefresh, deviceRefreshUser } from './devices.ts'
export {
  type EmailVerificationLink,
  emailVerificationUser,
  type VerifiedEmail,
} from './email-verifications.ts'
export {
  insertChallenge,
  type Passkey,
  passkeyByCredentialId,
  passkeyCredentialIdsOf,
  RECOVERY_CODE_COUNT,
  redeemChallengeUser,
  type TotpStatus,
  takeChallenge,
  takeRecoveryCode,
  takeTotpStep,
  totpFactorOf,
  totpStatusOf,
} from './factors.ts'
export { type LinkRedemption, type SignInLink, signInLinkUser } from './links.ts'
export { type OidcIdentity, oidcIdentityUser } from './oidc-identities.ts'
export { findSignInUser, passwordHashOf } from './passwords.ts'
export { ROLE_SCOPES, sessionScopes } from './role-scopes.ts'
export * from './schema.ts'
export { type Session, sessionIdByTokenHash, toSession } from './sessions.ts'
export type * from './tables.ts'
