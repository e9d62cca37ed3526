// Runs every test/**/*.test.ts with node:test through tsx. Says once whether PostgreSQL is covered.
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import pg from 'pg'

function findTests(dir) {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) return findTests(full)
    return entry.name.endsWith('.test.ts') ? [full] : []
  })
}

async function postgresReachable() {
  const url = process.env.TEST_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
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

const filters = process.argv.slice(2)
const files = findTests('test')
  .filter((file) => filters.length === 0 || filters.some((f) => file.includes(f)))
  .sort()
const env = { ...process.env }
if (await postgresReachable()) {
  console.log('Tests run on SQLite and on PostgreSQL.')
  // Every file must then cover PostgreSQL: one whose own probe fails (a slow connect on a loaded
  // machine) fails instead of quietly running its suites on SQLite only.
  env.TEST_POSTGRES = 'on'
} else {
  console.log('PostgreSQL is not reachable (TEST_DATABASE_URL or 127.0.0.1:5432): tests run on SQLite only.')
  env.TEST_POSTGRES = 'off'
}
const result = spawnSync(process.execPath, ['--import', 'tsx', '--test', '--test-concurrency=2', '--test-reporter=spec', ...files], {
  stdio: 'inherit',
  env
})
process.exit(result.status ?? 1)
