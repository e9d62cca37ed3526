// Builds dist/ (TypeScript, then the web pages) only when a source is newer than the last build, so
// `npm start` and `npm run cli` start at once when nothing changed (D-74). Run by `prepare` (during
// `npm ci`) and before every start. Whatever it prints goes to standard error: standard output of a
// start carries only JSON log lines (D-73).
//
//   node scripts/build.mjs           build what is out of date
//   node scripts/build.mjs --force   build everything
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { newest, upToDate as pagesUpToDate } from './build-web.mjs'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
const STAMP = path.join(ROOT, 'dist', '.tsbuildinfo')
const force = process.argv.includes('--force')

/** Whether dist/ holds a build of every TypeScript source as they are now. */
function typescriptUpToDate() {
  const built = fs.statSync(STAMP, { throwIfNoEntry: false })?.mtimeMs
  if (built === undefined || !fs.existsSync(path.join(ROOT, 'dist', 'main.js')) || !fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) {
    return false
  }
  const inputs = ['tsconfig.json', 'package-lock.json'].map((file) => fs.statSync(path.join(ROOT, file)).mtimeMs)
  return built >= Math.max(newest(path.join(ROOT, 'src')), ...inputs)
}

/** Runs a build step with its output on standard error; exits with its status when it fails. */
function run(what, args) {
  const result = spawnSync(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 2, 2] })
  if (result.status !== 0) {
    process.stderr.write(`build: ${what} failed (exit ${result.status ?? result.signal})\n`)
    process.exit(result.status ?? 1)
  }
}

if (force || !typescriptUpToDate()) {
  const started = Date.now()
  run('tsc', [path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', 'tsconfig.json'])
  // tsc leaves the build info untouched when nothing it emits changed: the stamp says "checked now".
  fs.utimesSync(STAMP, new Date(), new Date())
  process.stderr.write(`build: compiled src/ into dist/ in ${Date.now() - started} ms\n`)
}
if (force || !pagesUpToDate()) run('web pages', [path.join(ROOT, 'scripts', 'build-web.mjs'), ...(force ? ['--force'] : [])])
