export * from './app.ts'
export * from './auth/api-key-token.ts'
export * from './bootstrap.ts'
export * from './cli/run-cli.ts'
export * from './config.ts'
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
