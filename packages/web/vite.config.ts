import { execFileSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'
import { defaultClientConditions, defineConfig, type Plugin } from 'vite'
import { VitePWA } from 'vite-plugin-pwa'

/**
 * The household app, served by the server at /app. `hearth-source` makes the SDK and the engine
 * resolve to their TypeScript sources (as everywhere in this repository), so nothing else needs a
 * build first. The service worker precaches the shell and PGlite's wasm and data files, so a
 * reload with the network off opens the app on its IndexedDB replica.
 */
export default defineConfig({
  base: '/app/',
  resolve: { conditions: ['hearth-source', ...defaultClientConditions] },
  oxc: { jsx: { runtime: 'automatic', importSource: 'preact' } },
  optimizeDeps: { exclude: ['@electric-sql/pglite'] },
  build: {
    target: 'es2022',
    chunkSizeWarningLimit: 4096,
    rollupOptions: {
      external: [/^node:/],
      // PGlite's own direct evals and rrule's CommonJS default are known and harmless.
      onwarn(warning, warn) {
        if (warning.code === 'EVAL' || warning.code === 'IMPORT_IS_UNDEFINED') return
        warn(warning)
      },
    },
  },
  worker: { format: 'es' },
  plugins: [
    replicaTemplate(),
    VitePWA({
      registerType: 'autoUpdate',
      injectRegister: null,
      scope: '/app/',
      base: '/app/',
      manifest: {
        name: 'Hearth',
        short_name: 'Hearth',
        description: 'Household finances, on this device and in sync.',
        theme_color: '#2f5d50',
        background_color: '#f7f5f0',
        display: 'standalone',
        start_url: '/app/',
        scope: '/app/',
        icons: [{ src: 'icon.svg', sizes: 'any', type: 'image/svg+xml' }],
      },
      workbox: {
        globPatterns: ['**/*.{js,css,html,svg,wasm,data,webmanifest,tgz}'],
        // PGlite's wasm and data files are several MB each; the app cannot open offline without them.
        maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
        navigateFallback: '/app/index.html',
        navigateFallbackAllowlist: [/^\/app(\/|$)/],
        cleanupOutdatedCaches: true,
        // Web Push: the push and notificationclick handlers (public/push-handler.js).
        importScripts: ['push-handler.js'],
      },
    }),
  ],
})

/**
 * The replica template at /app/replica-template.tgz (scripts/replica-template.ts, in Node on the
 * engine's sources): a new device's replica starts from it, migrated, rather than running initdb
 * and every migration in the page. Precached with the rest, so it is there offline too.
 */
function replicaTemplate(): Plugin {
  return {
    name: 'hearth-replica-template',
    apply: 'build',
    generateBundle() {
      const script = fileURLToPath(new URL('./scripts/replica-template.ts', import.meta.url))
      const source = execFileSync(
        process.execPath,
        ['--conditions=hearth-source', '--import', 'tsx', script],
        {
          maxBuffer: 64 * 1024 * 1024,
          stdio: ['ignore', 'pipe', 'inherit'],
        },
      )
      this.emitFile({ type: 'asset', fileName: 'replica-template.tgz', source })
    },
  }
}
