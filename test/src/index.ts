export * from './http-fixture.ts'
export * from './store.ts'
export * from './test-server.ts'
