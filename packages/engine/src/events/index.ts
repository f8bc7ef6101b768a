export * from './catalog.ts'
export * from './envelope.ts'
