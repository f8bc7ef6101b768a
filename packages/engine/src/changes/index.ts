export * from './changes.ts'
export type * from './tables.ts'
