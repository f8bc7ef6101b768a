export * from './model.ts'
export * from './name-vector.ts'
export * from './schema.ts'
export type * from './tables.ts'
