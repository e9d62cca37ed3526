// Builds the staff console and the customers' tracking page (web/) with Vite into dist/web, which
// the API serves at /console/ and /track/{token}. Run by scripts/build.mjs (so by `npm ci`,
// `npm start` and `npm run cli`), by `npm test` and by the end-to-end tests' set-up. No network.
//
//   node scripts/build-web.mjs           build unless dist/web is newer than every source
//   node scripts/build-web.mjs --force   build anyway
//   node scripts/build-web.mjs --watch   build, then again on every change (development)
//
// Several processes may ask at once (test files run in parallel): one builds under a lock, the
// others wait and then find the build up to date. A build is written beside dist/web and moved
// into place whole, so a server never serves half of one.
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const WEB = path.join(ROOT, 'web')
const DIST = path.join(ROOT, 'dist')
const OUT = path.join(DIST, 'web')
const STAMP = path.join(OUT, '.built')
const LOCK = path.join(DIST, '.web-build.lock')
const SELF = fileURLToPath(import.meta.url)
const STALE_LOCK_MS = 180_000

const args = new Set(process.argv.slice(2))

/** The newest modification time under a folder (sources, HTML, styles, tsconfig). */
export function newest(dir) {
  let latest = 0
  for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
    if (entry.name === 'node_modules' || entry.name.startsWith('.')) continue
    const full = path.join(dir, entry.name)
    latest = Math.max(latest, entry.isDirectory() ? newest(full) : fs.statSync(full).mtimeMs)
  }
  return latest
}

/** Whether dist/web holds a build of the pages as they are now. */
export function upToDate() {
  try {
    const built = fs.statSync(STAMP).mtimeMs
    const sources = Math.max(newest(WEB), fs.statSync(SELF).mtimeMs, fs.statSync(path.join(ROOT, 'package-lock.json')).mtimeMs)
    return built >= sources && fs.existsSync(path.join(OUT, 'index.html')) && fs.existsSync(path.join(OUT, 'track.html'))
  } catch {
    return false
  }
}

function viteConfig(outDir, watch) {
  return {
    configFile: false,
    root: WEB,
    base: '/console/',
    publicDir: false,
    logLevel: 'warn',
    clearScreen: false,
    build: {
      outDir,
      emptyOutDir: true,
      target: 'es2022',
      // Nothing inline: the pages' Content-Security-Policy admits scripts and styles from 'self' only.
      modulePreload: { polyfill: false },
      assetsInlineLimit: 0,
      sourcemap: false,
      reportCompressedSize: false,
      watch: watch ? {} : null,
      rollupOptions: {
        input: { console: path.join(WEB, 'index.html'), track: path.join(WEB, 'track.html') }
      }
    }
  }
}

async function loadVite() {
  try {
    return await import('vite')
  } catch {
    return null
  }
}

async function withLock(work) {
  fs.mkdirSync(DIST, { recursive: true })
  const deadline = Date.now() + STALE_LOCK_MS
  for (;;) {
    try {
      fs.mkdirSync(LOCK)
      break
    } catch (error) {
      if (error.code !== 'EEXIST') throw error
      // A lock left by a build that died long ago is taken over.
      const age = Date.now() - (fs.statSync(LOCK, { throwIfNoEntry: false })?.mtimeMs ?? Date.now())
      if (age > STALE_LOCK_MS || Date.now() > deadline) fs.rmSync(LOCK, { recursive: true, force: true })
      else await new Promise((resolve) => setTimeout(resolve, 200))
    }
  }
  try {
    return await work()
  } finally {
    fs.rmSync(LOCK, { recursive: true, force: true })
  }
}

async function main() {
  // Up to date: nothing to load (a start checks this every time, D-74).
  if (!args.has('--watch') && !args.has('--force') && upToDate()) return
  const vite = await loadVite()
  if (vite === null) {
    // `npm ci --omit=dev` has no Vite: the API still runs; /console/ says how to build it.
    console.warn('build:web: vite is not installed (npm ci installs it); the web console was not built.')
    return
  }
  if (args.has('--watch')) {
    await vite.build(viteConfig(OUT, true))
    return
  }
  if (!args.has('--force') && upToDate()) return
  await withLock(async () => {
    if (!args.has('--force') && upToDate()) return
    const started = Date.now()
    const temporary = path.join(DIST, `web.building-${process.pid}`)
    try {
      await vite.build(viteConfig(temporary, false))
      fs.writeFileSync(path.join(temporary, '.built'), `${new Date().toISOString()}\n`)
      const old = path.join(DIST, `web.old-${process.pid}`)
      if (fs.existsSync(OUT)) fs.renameSync(OUT, old)
      fs.renameSync(temporary, OUT)
      fs.rmSync(old, { recursive: true, force: true })
    } finally {
      fs.rmSync(temporary, { recursive: true, force: true })
    }
    // Standard error: a start's standard output carries only JSON log lines (D-73, D-74).
    console.error(`build:web: built the console and tracking page into dist/web in ${Date.now() - started} ms`)
  })
}

// Imported (scripts/build.mjs asks `upToDate`), it builds nothing by itself.
if (process.argv[1] !== undefined && fs.realpathSync(process.argv[1]) === SELF) await main()
