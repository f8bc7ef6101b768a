import { defineConfig } from 'tsup'

/**
 * The package build: ESM for Node (`node.js`) and browsers (`index.js`), with declarations. The
 * engine and the contracts are private workspace packages, so their code and types are bundled
 * in; every other import stays a dependency of the package.
 */
export default defineConfig({
  entry: { index: 'src/index.ts', node: 'src/node.ts' },
  format: ['esm'],
  platform: 'neutral',
  target: 'es2022',
  outDir: 'dist',
  clean: true,
  splitting: true,
  sourcemap: true,
  treeshake: true,
  noExternal: [/^@hearth\//],
  external: [/^node:/],
  removeNodeProtocol: false,
  dts: true,
  tsconfig: 'tsconfig.build.json',
})
