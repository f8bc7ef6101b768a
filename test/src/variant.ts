/** Which store this test run uses: PostgreSQL when TEST_DATABASE_URL is set, else PGlite. */
export const TEST_DATABASE_URL = process.env.TEST_DATABASE_URL || undefined

export const STORE_VARIANT: 'pglite' | 'postgres' = TEST_DATABASE_URL ? 'postgres' : 'pglite'

/** Where the global setup leaves a migrated PGlite folder that each worker copies. */
export const TEMPLATE_DIR_ENV = 'HEARTH_TEST_TEMPLATE_DIR'
