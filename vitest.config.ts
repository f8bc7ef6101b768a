import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: [
      'packages/*/src/**/*.test.ts',
      'server/src/**/*.test.ts',
      'client-sdk/src/**/*.test.ts',
      'test/**/*.test.ts',
    ],
    globalSetup: ['test/src/global-setup.ts'],
    pool: 'forks',
    // One migrated store per worker, shared by its files: PGlite boots in seconds, not milliseconds.
    isolate: false,
    maxWorkers: 2,
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
})
