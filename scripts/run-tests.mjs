// Runs every test/**/*.test.ts (or those whose path contains an argument) with node:test through
// tsx, after building dist/ (child processes run the built CLI and server). Says once whether
// PostgreSQL is covered; on CI (CI=true) a PostgreSQL that does not answer fails the run instead.
//
//   node scripts/run-tests.mjs [--list] [path fragment …]   --list: say what would run, run nothing
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'
import pg from 'pg'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')

function findTests(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return findTests(full)
    return entry.name.endsWith('.test.ts') ? [full] : []
  })
}

async function postgresReachable(url) {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 })
  try {
    await client.connect()
    await client.query('select 1')
    return true
  } catch {
    return false
  } finally {
    await client.end().catch(() => {})
  }
}

/** Whether an environment says it is a CI run (GitHub, GitLab and most others set CI=true). */
export function onCi(env) {
  return ['true', '1'].includes((env.CI ?? '').toLowerCase())
}

/**
 * What the run covers: TEST_POSTGRES for the test files ('on' makes a file whose own probe fails
 * fail too), the line said once, and an exit status when the run must not go on.
 */
export function postgresCoverage({ reachable, ci }) {
  if (reachable) return { testPostgres: 'on', line: 'Tests run on SQLite and on PostgreSQL.' }
  const where = 'PostgreSQL is not reachable (TEST_DATABASE_URL or 127.0.0.1:5432)'
  if (ci) return { exitCode: 1, line: `${where}, and CI=true: a CI run must cover PostgreSQL. Failing.` }
  return { testPostgres: 'off', line: `${where}: tests run on SQLite only.` }
}

/** Builds dist/ with tsc (incremental: quick when nothing changed); false when nothing was emitted. */
export function buildDist() {
  const tsc = path.join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc')
  const build = () => spawnSync(process.execPath, [tsc, '-p', 'tsconfig.json'], { cwd: ROOT, stdio: 'inherit' }).status
  let status = build()
  // The incremental state may outlive deleted outputs: then build everything again.
  if (status !== 1 && !fs.existsSync(path.join(ROOT, 'dist', 'cli.js'))) {
    fs.rmSync(path.join(ROOT, 'dist', '.tsbuildinfo'), { force: true })
    status = build()
  }
  // 2: type errors, every file still emitted (tsx runs the tests regardless of types too).
  if (status === 2) console.log('dist/ was built with type errors (npm run typecheck lists them).')
  return status === 0 || status === 2
}

async function main() {
  const args = process.argv.slice(2)
  const list = args.includes('--list')
  const filters = args.filter((arg) => arg !== '--list')
  const files = findTests(path.join(ROOT, 'test'))
    .map((file) => path.relative(ROOT, file))
    .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
    .sort()
  if (files.length === 0) {
    console.error(`No test file's path contains ${filters.map((f) => JSON.stringify(f)).join(' or ')}.`)
    return 1
  }
  const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
  const coverage = postgresCoverage({ reachable: await postgresReachable(url), ci: onCi(process.env) })
  if (coverage.exitCode !== undefined) {
    console.error(coverage.line)
    return coverage.exitCode
  }
  console.log(coverage.line)
  if (list) {
    for (const file of files) console.log(file)
    return 0
  }
  if (!buildDist()) return 1
  // TEST_DIST_BUILT: test/helpers/processes.ts builds dist/ itself when a file runs without this runner.
  const env = { ...process.env, TEST_POSTGRES: coverage.testPostgres, TEST_DIST_BUILT: '1' }
  const node = ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files]
  const result = spawnSync(process.execPath, node, { cwd: ROOT, stdio: 'inherit', env })
  return result.status ?? 1
}

const invoked = process.argv[1] === undefined ? '' : pathToFileURL(fs.realpathSync(process.argv[1])).href
if (import.meta.url === invoked) process.exit(await main())
