export * from './http-fixture.ts'
export * from './store-fixture.ts'
export * from './variant.ts'
