export * from './app.ts'
export * from './auth/api-key-token.ts'
export { DEFAULT_SESSION_SETTINGS, type SessionSettings } from './auth/session-settings.ts'
export * from './bootstrap.ts'
export * from './cli/run-cli.ts'
export * from './config.ts'
export * from './http/cost-limits.ts'
export * from './http/rate-limits.ts'
export * from './http/reserved-path-words.ts'
export {
  announceBillsDueSoon,
  announceLowBalances,
  announcePriceChanges,
  materializeRecurrences,
} from './jobs/recurrence-jobs.ts'
export { serverJobs } from './jobs/server-jobs.ts'
export * from './server.ts'
export * from './sync/socket-limits.ts'
export { secretBox } from './webhooks/secret-box.ts'
