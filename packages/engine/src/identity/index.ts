export * from './access.ts'
export type * from './household-seeders.ts'
export * from './invitation-presets.ts'
export {
  type Invitation,
  type InvitationStatus,
  invitationHousehold,
  type Redemption,
} from './invitations.ts'
export type { MyHousehold } from './membership.ts'
export * from './membership-schema.ts'
export * from './model.ts'
export * from './schema.ts'
export type * from './tables.ts'
