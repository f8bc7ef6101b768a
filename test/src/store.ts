/** The store fixture alone, for tests that must not load the server (the engine's own tests). */
export * from './store-fixture.ts'
export * from './variant.ts'
