export * from './store-fixture.ts'
export * from './variant.ts'
