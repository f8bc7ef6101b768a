export * from './access.ts'
export * from './model.ts'
export * from './schema.ts'
export type * from './tables.ts'
