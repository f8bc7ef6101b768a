import { z } from 'zod'

/** A password as a person types it; the rules beyond its length are the server's (docs/api/sign-in.md). */
const PasswordSchema = z.string().min(1).max(1024)

const DeviceNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .optional()
  .describe('What to call this browser or device on your sessions list; "Web browser" by default.')

const TotpCodeSchema = z.string().trim().min(1).max(20)
const RecoveryCodeSchema = z.string().trim().min(1).max(40)

export const SignInBodySchema = z
  .union([
    z.strictObject({
      email: z.email().max(320).describe('Your email; compared case-insensitively.'),
      password: PasswordSchema,
      totpCode: TotpCodeSchema.optional().describe(
        'The code your authenticator app shows, when you have one (`SECOND_FACTOR_REQUIRED` asks for it).',
      ),
      recoveryCode: RecoveryCodeSchema.optional().describe(
        'One of your recovery codes, in place of `totpCode`; each works once.',
      ),
      deviceName: DeviceNameSchema,
    }),
    z.strictObject({
      apiKey: z.string().min(1).max(200).describe('An API key to exchange for a session; it is not kept.'),
      deviceName: DeviceNameSchema,
    }),
  ])
  .meta({ id: 'SignInBody' })

export const SessionSchema = z
  .object({
    id: z.string(),
    kind: z
      .enum(['session', 'device'])
      .describe(
        '`session`: a browser signed in with its cookie; `device`: an SDK device with a refreshed token.',
      ),
    name: z.string(),
    userAgent: z.string().nullable(),
    clientAddress: z.string().nullable(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
    expiresAt: z
      .string()
      .describe('The session ends then, however busy; a device has no such end, and names its idle one.'),
    idleExpiresAt: z.string().describe('The session ends then unless it is used before.'),
    current: z.boolean().describe('Whether this is the session making the request.'),
  })
  .meta({ id: 'Session' })

export const SessionListSchema = z.object({ items: z.array(SessionSchema) }).meta({ id: 'SessionList' })

export const SignedInSchema = z
  .object({
    userId: z.string(),
    email: z.string().nullable(),
    session: SessionSchema,
  })
  .meta({ id: 'SignedIn' })

/** What `navigator.credentials` answered, as `@simplewebauthn/browser` encodes it. */
const WebAuthnResponseSchema = z
  .record(z.string(), z.unknown())
  .describe('What `navigator.credentials` answered, as `@simplewebauthn/browser` encodes it (JSON).')

const PasskeyNameSchema = z
  .string()
  .trim()
  .min(1)
  .max(200)
  .describe('What to call this passkey ("Phone", "YubiKey").')

/** A passkey made at a link's or an invitation's redeem, in place of a password. */
export const RedeemPasskeySchema = z
  .strictObject({
    response: WebAuthnResponseSchema.describe(
      'What `navigator.credentials.create()` answered for the options of the redeem’s `passkey/options` route.',
    ),
    name: PasskeyNameSchema.optional().describe('What to call this passkey; "Passkey" by default.'),
  })
  .meta({ id: 'RedeemPasskey' })

export const RedeemPasskeyOptionsBodySchema = z
  .strictObject({
    code: z.string().min(1).max(200).describe('The code of the setup or reset link, or of the invitation.'),
    email: z
      .email()
      .max(320)
      .optional()
      .describe('The email you will sign up with, to label the passkey in your browser’s list.'),
    name: z
      .string()
      .trim()
      .min(1)
      .max(200)
      .optional()
      .describe('Your name, to label the passkey when there is no email.'),
  })
  .meta({ id: 'RedeemPasskeyOptionsBody' })

export const RedeemSignInLinkBodySchema = z
  .strictObject({
    code: z.string().min(1).max(200).describe('The `code` of the setup or reset link.'),
    password: PasswordSchema.optional().describe(
      'Your new password: at least 12 characters, not a common one. Send it or `passkey`, one of the two.',
    ),
    passkey: RedeemPasskeySchema.optional().describe(
      'A passkey in place of a password, made for the options of `POST /sign-in-links/passkey/options`.',
    ),
    email: z
      .email()
      .max(320)
      .optional()
      .describe('Required when your user has no email yet (the first owner).'),
    name: z.string().trim().min(1).max(200).optional().describe('Your name, if you want to change it.'),
    deviceName: DeviceNameSchema,
  })
  .meta({ id: 'RedeemSignInLinkBody' })

export const SetPasswordBodySchema = z
  .strictObject({
    currentPassword: PasswordSchema.optional().describe('Required when you have a password already.'),
    newPassword: PasswordSchema.describe('At least 12 characters, not a common one.'),
  })
  .meta({ id: 'SetPasswordBody' })

export const ResetLinkSchema = z
  .object({
    id: z.string(),
    userId: z.string(),
    url: z.string().describe('The link to hand the member; it works once, until `expiresAt`.'),
    code: z.string(),
    expiresAt: z.string(),
    emailed: z.boolean().describe('Whether the link was sent to the member by email (SMTP configured).'),
  })
  .meta({ id: 'ResetLink' })

export const TotpStatusSchema = z
  .object({
    enrolled: z.boolean().describe('Whether an authenticator app is asked for at sign-in.'),
    confirmedAt: z.string().nullable(),
    recoveryCodesLeft: z.int().describe('Recovery codes not used yet.'),
  })
  .meta({ id: 'TotpStatus' })

export const TotpEnrolmentSchema = z
  .object({
    secret: z.string().describe('The secret in base32, to type into an authenticator app; shown once.'),
    uri: z.string().describe('The same secret as an `otpauth://totp/…` URI; shown once.'),
  })
  .meta({ id: 'TotpEnrolment' })

export const ConfirmTotpBodySchema = z
  .strictObject({ code: TotpCodeSchema.describe('The code the authenticator app shows now.') })
  .meta({ id: 'ConfirmTotpBody' })

export const RecoveryCodesSchema = z
  .object({
    recoveryCodes: z
      .array(z.string())
      .describe('Ten recovery codes, each usable once in place of a code; shown once.'),
    sessionsEnded: z.int().describe('How many of your other sessions ended.'),
  })
  .meta({ id: 'RecoveryCodes' })

export const FactorProofBodySchema = z
  .union([
    z.strictObject({ password: PasswordSchema.describe('Your password.') }),
    z.strictObject({ code: TotpCodeSchema.describe('A code your authenticator app shows now.') }),
    z.strictObject({ recoveryCode: RecoveryCodeSchema.describe('One of your recovery codes.') }),
  ])
  .meta({ id: 'FactorProofBody' })

export const PasskeySchema = z
  .object({
    id: z.string(),
    name: z.string(),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .meta({ id: 'Passkey' })

export const PasskeyListSchema = z.object({ items: z.array(PasskeySchema) }).meta({ id: 'PasskeyList' })

export const AddPasskeyBodySchema = z
  .strictObject({
    name: PasskeyNameSchema,
    response: WebAuthnResponseSchema,
  })
  .meta({ id: 'AddPasskeyBody' })

export const RenamePasskeyBodySchema = z
  .strictObject({ name: z.string().trim().min(1).max(200) })
  .meta({ id: 'RenamePasskeyBody' })

export const PasskeySignInBodySchema = z
  .strictObject({ response: WebAuthnResponseSchema, deviceName: DeviceNameSchema })
  .meta({ id: 'PasskeySignInBody' })

export const WebAuthnOptionsSchema = z
  .record(z.string(), z.unknown())
  .describe(
    'Options for `navigator.credentials` as `@simplewebauthn/browser` takes them; the challenge works once, for 5 minutes.',
  )
  .meta({ id: 'WebAuthnOptions' })

export const CreateDeviceBodySchema = z
  .union([
    z.strictObject({
      name: z.string().trim().min(1).max(200).describe('What to call this device on your devices list.'),
      email: z.email().max(320).describe('Your email; compared case-insensitively.'),
      password: PasswordSchema,
      totpCode: TotpCodeSchema.optional().describe(
        'The code your authenticator app shows, when you have one (`SECOND_FACTOR_REQUIRED` asks for it).',
      ),
      recoveryCode: RecoveryCodeSchema.optional().describe(
        'One of your recovery codes, in place of `totpCode`; each works once.',
      ),
    }),
    z.strictObject({
      name: z.string().trim().min(1).max(200),
      apiKey: z.string().min(1).max(200).describe('An API key to exchange; it is not kept.'),
    }),
    z.strictObject({
      name: z.string().trim().min(1).max(200),
    }),
  ])
  .describe(
    'A device signs in with an email and password, an API key, or the request’s own session (its cookie or bearer token).',
  )
  .meta({ id: 'CreateDeviceBody' })

export const RefreshDeviceBodySchema = z
  .strictObject({
    refreshToken: z.string().min(1).max(200).describe('The refresh token the device was last given.'),
  })
  .meta({ id: 'RefreshDeviceBody' })

export const DeviceCredentialSchema = z
  .object({
    userId: z.string(),
    device: SessionSchema,
    accessToken: z.string().describe('Send as `Authorization: Bearer`, or in sync’s `hello.token`.'),
    accessTokenExpiresAt: z.string().describe('The access token stops working then; refresh before.'),
    refreshToken: z
      .string()
      .describe(
        'Trade it for the next pair at `POST /devices/refresh`; it works once, and a reuse revokes the device.',
      ),
  })
  .meta({ id: 'DeviceCredential' })

export const OidcProviderSchema = z
  .object({
    enabled: z.boolean().describe('Whether this server signs people in with an OpenID Connect provider.'),
    name: z.string().nullable().describe('What the sign-in button calls the provider (`HEARTH_OIDC_NAME`).'),
    required: z.boolean().describe('Whether password sign-in is refused: people sign in with the provider.'),
  })
  .meta({ id: 'OidcProvider' })

export const OidcIdentitySchema = z
  .object({
    issuer: z.string(),
    email: z.string().nullable().describe('The email the provider vouched for when the identity was linked.'),
    createdAt: z.string(),
    lastUsedAt: z.string().nullable(),
  })
  .meta({ id: 'OidcIdentity' })

export const VerifyEmailBodySchema = z
  .strictObject({
    code: z.string().min(1).max(200).describe('The `code` of the link mailed to your email.'),
  })
  .meta({ id: 'VerifyEmailBody' })

export const VerifiedEmailSchema = z
  .object({
    userId: z.string(),
    email: z.string().describe('The email now verified.'),
    emailVerifiedAt: z.string().describe('When it was verified.'),
  })
  .meta({ id: 'VerifiedEmail' })

export const EmailVerificationSentSchema = z
  .object({
    email: z.string().describe('Where the link was mailed.'),
    expiresAt: z.string().describe('The link works once, until then.'),
  })
  .meta({ id: 'EmailVerificationSent' })
