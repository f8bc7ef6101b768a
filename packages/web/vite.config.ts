import { defaultClientConditions, defineConfig } from 'vite'
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
        globPatterns: ['**/*.{js,css,html,svg,wasm,data,webmanifest}'],
        // PGlite's wasm and data files are several MB each; the app cannot open offline without them.
        maximumFileSizeToCacheInBytes: 64 * 1024 * 1024,
        navigateFallback: '/app/index.html',
        navigateFallbackAllowlist: [/^\/app(\/|$)/],
        cleanupOutdatedCaches: true,
      },
    }),
  ],
})
