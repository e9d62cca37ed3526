import assert from 'node:assert/strict'
import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { childEnv, ROOT, waitUntilRefused } from '../helpers/processes.js'

// D-74: after one build (`npm ci` runs it as `prepare`), a start builds nothing: the sources are
// checked, not compiled. D-73: standard output carries JSON log lines only; build messages, if any,
// go to standard error.
describe('npm start and npm run cli start without building (D-74)', () => {
  let dataDir = ''
  let env: NodeJS.ProcessEnv = {}

  before(() => {
    dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-start-'))
    env = childEnv({ PORT: '0', DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'db.sqlite')}`, DISPATCHER: 'off' })
    // The build npm ci's `prepare` makes; whatever it prints goes to standard error.
    const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8', env })
    assert.equal(build.status, 0, build.stderr)
    assert.equal(build.stdout, '')
  })

  after(() => fs.rmSync(dataDir, { recursive: true, force: true }))

  it('should listen with only JSON lines on standard output and build nothing', { timeout: 60_000 }, async () => {
    const child = spawn('npm', ['run', '--silent', 'start'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true })
    let out = ''
    let err = ''
    child.stderr.on('data', (chunk: Buffer) => {
      err += chunk.toString('utf8')
    })
    try {
      const port = await new Promise<number>((resolve, reject) => {
        child.stdout.on('data', (chunk: Buffer) => {
          out += chunk.toString('utf8')
          const match = /"url":"http:\/\/[^:]+:(\d+)"/.exec(out)
          if (match !== null) resolve(Number(match[1]))
        })
        child.once('exit', (code) => reject(new Error(`exited ${code} before listening: ${out}${err}`)))
      })
      const health = await fetch(`http://127.0.0.1:${port}/healthz`)
      assert.equal(health.status, 200)
      child.kill('SIGTERM')
      await waitUntilRefused(port, '127.0.0.1', 15_000)
      const lines = out.split('\n').filter((line) => line !== '')
      assert.ok(lines.length > 0)
      for (const line of lines) assert.doesNotThrow(() => JSON.parse(line), `not a JSON line: ${line}`)
      assert.doesNotMatch(err, /build/, 'nothing was built')
    } finally {
      try {
        process.kill(-child.pid!, 'SIGKILL')
      } catch {
        // the group is gone already
      }
    }
  })

  it('should run a CLI command without building or printing npm lifecycle lines', { timeout: 60_000 }, () => {
    const result = spawnSync('npm', ['run', '--silent', 'cli', '--', 'api-key', 'list'], { cwd: ROOT, env, encoding: 'utf8' })
    assert.equal(result.status, 0, result.stderr)
    assert.doesNotMatch(result.stdout, /^> /m)
    assert.doesNotMatch(result.stderr, /build/)
  })

  it('should build again when a source is newer than the build, on standard error only', { timeout: 120_000 }, () => {
    // The stamp set back, as if a source changed since: the next start compiles first.
    const stamp = path.join(ROOT, 'dist', '.tsbuildinfo')
    const old = new Date(Date.now() - 3_600_000)
    const before = fs.statSync(stamp).mtime
    fs.utimesSync(stamp, old, old)
    try {
      const build = spawnSync(process.execPath, ['scripts/build.mjs'], { cwd: ROOT, encoding: 'utf8', env })
      assert.equal(build.status, 0, build.stderr)
      assert.equal(build.stdout, '')
      assert.match(build.stderr, /^build: compiled src\/ into dist\/ in \d+ ms$/m)
    } finally {
      if (fs.statSync(stamp).mtimeMs < before.getTime()) fs.utimesSync(stamp, before, before)
    }
  })
})
