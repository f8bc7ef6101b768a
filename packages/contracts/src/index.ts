export * from './catalog.ts'
export * from './identity.ts'
export * from './problem.ts'
export * from './sync.ts'
