import assert from 'node:assert/strict'
import { execFile } from 'node:child_process'
import { describe, it } from 'node:test'
import { promisify } from 'node:util'
import { DIALECTS } from '../helpers/app.js'
import { ROOT } from '../helpers/processes.js'

/**
 * Issue 26: a run on a machine meant to have PostgreSQL must cover it. The runner fails on CI
 * (CI=true) when PostgreSQL does not answer, and says once, elsewhere, that only SQLite is covered.
 */

// Nothing listens on port 1: the runner's probe is refused at once.
const CLOSED = 'postgres://postgres@127.0.0.1:1/postgres'

/** `node scripts/run-tests.mjs --list …` (says what it would run, runs nothing), its status and output. */
async function runner(env: Record<string, string | undefined>, filter = 'test/scripts/run-tests') {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env }
  for (const [name, value] of Object.entries(env)) if (value === undefined) delete childEnv[name]
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['scripts/run-tests.mjs', '--list', filter], {
      cwd: ROOT,
      env: childEnv
    })
    return { code: 0, stdout, stderr }
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string }
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr }
  }
}

describe('scripts/run-tests.mjs: which databases a run covers (issue 26)', () => {
  it('should fail on CI when PostgreSQL does not answer, saying why, before running anything', async () => {
    const result = await runner({ CI: 'true', TEST_DATABASE_URL: CLOSED })
    assert.equal(result.code, 1)
    assert.equal(result.stdout, '')
    assert.equal(
      result.stderr,
      'PostgreSQL is not reachable (TEST_DATABASE_URL or 127.0.0.1:5432), and CI=true: a CI run must cover PostgreSQL. Failing.\n'
    )
  })

  it('should say once, off CI, that the run covers SQLite only, and go on', async () => {
    const result = await runner({ CI: undefined, TEST_DATABASE_URL: CLOSED })
    assert.equal(result.code, 0, result.stderr)
    assert.equal(
      result.stdout,
      'PostgreSQL is not reachable (TEST_DATABASE_URL or 127.0.0.1:5432): tests run on SQLite only.\ntest/scripts/run-tests.test.ts\n'
    )
  })

  it('should cover both databases on CI when PostgreSQL answers', {
    skip: !DIALECTS.includes('postgres') && 'no PostgreSQL here'
  }, async () => {
    const result = await runner({ CI: 'true' })
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stdout, 'Tests run on SQLite and on PostgreSQL.\ntest/scripts/run-tests.test.ts\n')
  })

  it('should refuse a path fragment that matches no test file', async () => {
    const result = await runner({}, 'no-such-test-file')
    assert.equal(result.code, 1)
    assert.equal(result.stderr, 'No test file\'s path contains "no-such-test-file".\n')
  })
})
