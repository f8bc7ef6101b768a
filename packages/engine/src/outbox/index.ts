export * from './outbox.ts'
export type * from './tables.ts'
export * from './worker.ts'
