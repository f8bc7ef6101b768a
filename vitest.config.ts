import { defaultServerConditions } from 'vite'
import { defineConfig } from 'vitest/config'

/**
 * Workspace packages resolve to their TypeScript sources under this condition (see
 * client-sdk/package.json); published builds ignore it. Child processes that tests start inherit it.
 */
const SOURCE_CONDITION = 'hearth-source'
process.env.NODE_OPTIONS = [process.env.NODE_OPTIONS, `--conditions=${SOURCE_CONDITION}`]
  .filter(Boolean)
  .join(' ')

export default defineConfig({
  ssr: { resolve: { conditions: [SOURCE_CONDITION, ...defaultServerConditions] } },
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
