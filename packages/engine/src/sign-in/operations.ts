import { createDevice, refreshDevice } from './devices.ts'
import { issueEmailVerification, verifyEmail } from './email-verifications.ts'
import {
  addPasskey,
  beginPasskeyRegistration,
  beginTotp,
  confirmTotp,
  createSessionWithPasskey,
  getTotp,
  listPasskeys,
  regenerateRecoveryCodes,
  removePasskey,
  removeTotp,
  renamePasskey,
} from './factors.ts'
import { beginLinkPasskey, createResetLink, issueSignInLink, redeemSignInLink } from './links.ts'
import { linkOidcIdentity, listOidcIdentities, unlinkOidcIdentity } from './oidc-identities.ts'
import { setPassword } from './passwords.ts'
import { createSession, listSessions, revokeAllSessions, revokeSession } from './sessions.ts'

/** The sign-in domain's operations: sessions, passwords, second factors, passkeys and one-time links. */
export const signInOperations = {
  passkeys: {
    add: addPasskey,
    list: listPasskeys,
    registrationOptions: beginPasskeyRegistration,
    remove: removePasskey,
    rename: renamePasskey,
  },
  emailVerifications: {
    send: issueEmailVerification,
    verify: verifyEmail,
  },
  devices: {
    create: createDevice,
    refresh: refreshDevice,
  },
  oidcIdentities: {
    link: linkOidcIdentity,
    list: listOidcIdentities,
    unlink: unlinkOidcIdentity,
  },
  passwords: {
    set: setPassword,
  },
  recoveryCodes: {
    regenerate: regenerateRecoveryCodes,
  },
  sessions: {
    create: createSession,
    createWithPasskey: createSessionWithPasskey,
    list: listSessions,
    revoke: revokeSession,
    revokeAll: revokeAllSessions,
  },
  totp: {
    begin: beginTotp,
    confirm: confirmTotp,
    get: getTotp,
    remove: removeTotp,
  },
  signInLinks: {
    createReset: createResetLink,
    issue: issueSignInLink,
    passkeyOptions: beginLinkPasskey,
    redeem: redeemSignInLink,
  },
}
