import { fileURLToPath } from 'node:url'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'

describe('the client core', () => {
  it('bundles for browsers without any Node-only import of its own', async () => {
    const result = await build({
      entryPoints: [fileURLToPath(new URL('./index.ts', import.meta.url))],
      bundle: true,
      platform: 'browser',
      format: 'esm',
      write: false,
      logLevel: 'silent',
      metafile: true,
      // PGlite guards its own Node branch at run time; bundlers leave `node:` imports external for it.
      external: ['node:*'],
    })
    const nodeImports = Object.entries(result.metafile.inputs).flatMap(([path, input]) =>
      input.imports.filter((i) => i.external).map((i) => `${path} -> ${i.path}`),
    )
    expect(nodeImports.filter((line) => !line.includes('node_modules/@electric-sql/pglite/'))).toEqual([])
    const inputs = Object.keys(result.metafile.inputs)
    expect(inputs.filter((p) => /client-sdk\/src\/node|node_modules\/(ws|pg)\//.test(p))).toEqual([])
  }, 60_000)
})
