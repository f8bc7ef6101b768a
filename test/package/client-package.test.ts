/**
 * SLOW (about a minute, mostly the declaration build, which is skipped while `dist` is newer
 * than everything it is built from): packs @hearth/client as npm would publish
 * it, installs the tarball in a project outside the workspace, and uses it there as an app would:
 * from a Node script, and from an esbuild bundle in a real Chromium.
 */
import { execFile } from 'node:child_process'
import { copyFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import type { RunningServer } from '@hearth/server'
import { build } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { chromiumPath, launchChromium, serveFolder } from '../src/browser.ts'
import { stale } from '../src/builds.ts'
import { newOwner, startTestServer } from '../src/index.ts'

const run = promisify(execFile)
const clientDir = join(import.meta.dirname, '../../client-sdk')
const tsc = join(import.meta.dirname, '../../node_modules/typescript/bin/tsc')

/** The environment of a process outside the workspace: no source condition, nothing to read sources. */
function outsideEnv(): NodeJS.ProcessEnv {
  const { NODE_OPTIONS: _, ...env } = process.env
  return env
}

/** What `npm run build` writes in client-sdk (tsup), and everything it reads. */
const CLIENT_BUILD = ['index.js', 'node.js', 'index.d.ts', 'node.d.ts'].map((f) => `client-sdk/dist/${f}`)
const CLIENT_SOURCES = [
  'client-sdk/src',
  'client-sdk/package.json',
  'client-sdk/tsup.config.ts',
  'client-sdk/tsconfig.build.json',
  'packages/engine/src',
  'packages/engine/package.json',
  'packages/contracts/src',
  'packages/contracts/package.json',
  'tsconfig.base.json',
  'package-lock.json',
]

let server: RunningServer
let app: string

beforeAll(async () => {
  server = await startTestServer()
  app = mkdtempSync(join(tmpdir(), 'hearth-app-'))
  if (stale(CLIENT_BUILD, CLIENT_SOURCES)) {
    await run('npm', ['run', 'build'], { cwd: clientDir, env: outsideEnv(), maxBuffer: 16 * 1024 * 1024 })
  }
  // Built just above; prepack would build again, and print into the JSON.
  const { stdout } = await run('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', app], {
    cwd: clientDir,
    env: outsideEnv(),
    maxBuffer: 16 * 1024 * 1024,
  })
  const [packed] = JSON.parse(stdout) as { filename: string; files: { path: string }[] }[]
  expect(packed!.files.map((f) => f.path)).not.toContain('src/index.ts')
  writeFileSync(
    join(app, 'package.json'),
    JSON.stringify({
      name: 'hearth-app',
      private: true,
      type: 'module',
      dependencies: { '@hearth/client': `file:./${packed!.filename}` },
    }),
  )
  writeFileSync(join(app, 'app.mjs'), APP)
  // The dependencies are in the npm cache after the workspace's own install.
  await run('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], {
    cwd: app,
    env: outsideEnv(),
  })
}, 300_000)

afterAll(async () => {
  await server?.close()
  if (app) rmSync(app, { recursive: true, force: true })
})

/** The app both runtimes run: open the household, create a tag, wait until the server has it. */
const APP = `
export async function main(createHearth, options) {
  const hearth = await createHearth({ household: 'current', deviceName: 'packaged app', ...options })
  await hearth.sync.whenSynced({ timeoutMs: 30000 })
  const tag = await hearth.mutate.tags.create({ name: options.tagName })
  await hearth.sync.whenSynced({ timeoutMs: 30000 })
  const tags = (await hearth.query.tags.list({})).map((t) => t.name)
  const result = { householdId: hearth.householdId, tagId: tag.id, status: hearth.sync.status.state, tags }
  await hearth.close()
  return result
}

/** What a later visit finds on the device before it syncs anything. */
export async function storedTags(createHearth, options) {
  const hearth = await createHearth({ household: 'current', ...options, connect: false })
  const tags = (await hearth.query.tags.list({})).map((t) => t.name)
  await hearth.close()
  return tags
}

/** A write while offline; the page is then left without closing anything, as a closed tab is. */
export async function offlineTag(createHearth, options) {
  const hearth = await createHearth({ household: 'current', ...options, connect: false })
  const tag = await hearth.mutate.tags.create({ name: options.tagName })
  return { tagId: tag.id, pending: hearth.sync.status.pending }
}
`

let bundled: ReturnType<typeof bundleBrowserApp> | null = null

/** The app bundled for browsers by esbuild into `public/`, once for the tests that use it. */
function bundleBrowserApp() {
  writeFileSync(
    join(app, 'browser-app.mjs'),
    `import { createHearth } from '@hearth/client'
import { main, offlineTag, storedTags } from './app.mjs'
globalThis.runHearthApp = (options) => main(createHearth, options)
globalThis.storedTags = (options) => storedTags(createHearth, options)
globalThis.offlineTag = (options) => offlineTag(createHearth, options)
`,
  )
  const out = join(app, 'public')
  return build({
    absWorkingDir: app,
    entryPoints: ['browser-app.mjs'],
    bundle: true,
    platform: 'browser',
    format: 'esm',
    outfile: join(out, 'bundle.js'),
    logLevel: 'silent',
    metafile: true,
    // PGlite guards its own Node branch at run time; bundlers leave `node:` imports external for it.
    external: ['node:*'],
  }).then((result) => ({ out, result }))
}

async function serverTag(householdId: string, id: string) {
  return server.store.db
    .selectFrom('tags')
    .select('name')
    .where('household_id', '=', householdId)
    .where('id', '=', id)
    .executeTakeFirst()
}

describe('the packed @hearth/client', () => {
  it('runs in a plain Node ESM script: a device in a folder syncs a mutation', async () => {
    const owner = await newOwner(server)
    writeFileSync(
      join(app, 'node-app.mjs'),
      `import { createHearth } from '@hearth/client'
import { main } from './app.mjs'
const [serverUrl, token, store] = process.argv.slice(2)
console.log(JSON.stringify(await main(createHearth, { serverUrl, token, store, tagName: 'From Node' })))
`,
    )
    const { stdout } = await run(
      process.execPath,
      ['node-app.mjs', server.url, owner.api.token, join(app, 'device')],
      { cwd: app, env: outsideEnv() },
    )
    const result = JSON.parse(stdout)
    expect(result).toMatchObject({ householdId: owner.householdId, status: 'online' })
    expect(await serverTag(owner.householdId, result.tagId)).toEqual({ name: 'From Node' })
  }, 120_000)

  it('bundles for browsers with the browser entry and no Node-only import', async () => {
    bundled ??= bundleBrowserApp()
    const { result } = await bundled
    const inputs = Object.entries(result.metafile.inputs)
    const external = inputs.flatMap(([path, input]) =>
      input.imports.filter((i) => i.external).map((i) => `${path} -> ${i.path}`),
    )
    expect(external.filter((line) => !line.includes('node_modules/@electric-sql/pglite/'))).toEqual([])
    const paths = inputs.map(([path]) => path)
    expect(paths.filter((p) => /@hearth\/client\/dist\/index\.js$/.test(p))).toHaveLength(1)
    expect(
      paths.filter((p) => /@hearth\/client\/dist\/node|node_modules\/(ws|fs-native-extensions|pg)\//.test(p)),
    ).toEqual([])

    // The bundle loads (Node stands in for a page here: PGlite's browser build needs a real one to run).
    const { stdout } = await run(
      process.execPath,
      [
        '--input-type=module',
        '-e',
        "await import('./public/bundle.js'); console.log(typeof globalThis.runHearthApp)",
      ],
      { cwd: app, env: outsideEnv() },
    )
    expect(stdout.trim()).toBe('function')
  }, 120_000)

  // CI installs Chromium (.ci/run) and sets HEARTH_REQUIRE_BROWSER, so there this never skips.
  it.skipIf(!chromiumPath())(
    'runs the browser bundle in Chromium: a device in IndexedDB syncs, keeps its rows and its queue',
    async () => {
      const owner = await newOwner(server)
      bundled ??= bundleBrowserApp()
      const { out } = await bundled
      // PGlite fetches its WebAssembly and data files beside the module that loads it: the bundle.
      for (const file of ['pglite.wasm', 'pglite.data', 'initdb.wasm']) {
        copyFileSync(join(app, 'node_modules/@electric-sql/pglite/dist', file), join(out, file))
      }
      writeFileSync(
        join(out, 'index.html'),
        '<!doctype html><title>Hearth app</title><script type="module" src="./bundle.js"></script>',
      )
      // The page and the API are on different origins (ports), as for any web app: CORS.
      const site = await serveFolder(out)
      const browser = await launchChromium()
      try {
        const page = await browser.newPage()
        const errors: string[] = []
        page.on('pageerror', (error) => errors.push(error.message))
        await page.goto(`${site.url}/index.html`)
        await page.waitForFunction(() => typeof (globalThis as any).runHearthApp === 'function')
        const options = { serverUrl: server.url, token: owner.api.token, store: 'idb://hearth-app' }
        const result = await page.evaluate(
          (o) => (globalThis as any).runHearthApp({ ...o, tagName: 'From Chromium' }),
          options,
        )
        expect(result).toMatchObject({ householdId: owner.householdId, status: 'online' })
        expect(result.tags).toContain('From Chromium')
        expect(await serverTag(owner.householdId, result.tagId)).toEqual({ name: 'From Chromium' })

        // A later visit opens the same IndexedDB replica and has the tag before it connects.
        await page.reload()
        await page.waitForFunction(() => typeof (globalThis as any).storedTags === 'function')
        expect(await page.evaluate((o) => (globalThis as any).storedTags(o), options)).toContain(
          'From Chromium',
        )

        // A write made offline, then the page goes away without closing: the IndexedDB queue
        // has it, and the next visit pushes it.
        const offline = await page.evaluate(
          (o) => (globalThis as any).offlineTag({ ...o, tagName: 'Made offline' }),
          options,
        )
        expect(offline.pending).toBe(1)
        expect(await serverTag(owner.householdId, offline.tagId)).toBeUndefined()
        await page.reload()
        await page.waitForFunction(() => typeof (globalThis as any).runHearthApp === 'function')
        const later = await page.evaluate(
          (o) => (globalThis as any).runHearthApp({ ...o, tagName: 'After the reload' }),
          options,
        )
        expect(later.tags).toEqual(
          expect.arrayContaining(['From Chromium', 'Made offline', 'After the reload']),
        )
        expect(await serverTag(owner.householdId, offline.tagId)).toEqual({ name: 'Made offline' })
        expect(errors).toEqual([])
      } finally {
        await browser.close()
        await site.close()
      }
    },
    180_000,
  )

  it('types an app written in TypeScript from its own declarations', async () => {
    const declarations = readFileSync(join(app, 'node_modules/@hearth/client/dist/index.d.ts'), 'utf8')
    expect(declarations).not.toMatch(/from '@hearth\//)
    writeFileSync(
      join(app, 'typed-app.ts'),
      `import { createHearth, HearthError, ulid } from '@hearth/client'

export async function start(token: string): Promise<string> {
  const hearth = await createHearth({ serverUrl: 'http://127.0.0.1:8787', token, household: 'current' })
  const tag = await hearth.mutate.tags.create({ name: 'Typed' })
  const again = await hearth.mutate.tags.create({ id: ulid(), name: 'Typed too' })
  // @ts-expect-error a tag has a name, not a title
  await hearth.mutate.tags.create({ title: 'Wrong' })
  const tags = await hearth.query.tags.list()
  const names: string[] = tags.map((t) => t.name)
  const when: Date | null = hearth.sync.status.lastSyncedAt
  const codes: string[] = hearth.sync.rejected.map((r) => r.code)
  hearth.watch('tags.list', {}, (list) => list.map((t) => t.id))
  await hearth.sync.whenSynced().catch((e) => (e instanceof HearthError ? e.code : null))
  return [tag.id, again.id, ...names, ...codes, String(when)].join()
}
`,
    )
    writeFileSync(
      join(app, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'NodeNext',
          moduleResolution: 'NodeNext',
          strict: true,
          noEmit: true,
          skipLibCheck: true,
          types: [],
          lib: ['ES2023', 'DOM'],
        },
        files: ['typed-app.ts'],
      }),
    )
    const checked = await run(process.execPath, [tsc, '-p', 'tsconfig.json'], {
      cwd: app,
      env: outsideEnv(),
    }).then(
      () => '',
      (error: { stdout: string }) => error.stdout,
    )
    expect(checked).toBe('')
  }, 120_000)
})
