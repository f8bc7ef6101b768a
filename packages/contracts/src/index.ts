export * from './identity.ts'
export * from './problem.ts'
