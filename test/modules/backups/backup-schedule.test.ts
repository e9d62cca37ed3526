import assert from 'node:assert/strict'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { loadConfig } from '../../../src/config.js'
import { startServer } from '../../../src/http-server.js'
import { startBackupSchedule } from '../../../src/modules/backups/index.js'
import { createLogger } from '../../../src/platform/logger.js'
import { TestApp } from '../../helpers/app.js'
import { createTestDatabase } from '../../helpers/databases.js'
import { createCustomer } from '../../helpers/factories.js'

/** Timers that fire only when told: the test moves the schedule on, nothing waits for real time. */
class StepTimers {
  private pending: { fn: () => void; ms: number } | null = null
  private armed: Array<() => void> = []
  readonly delays: number[] = []

  setTimeout = (fn: () => void, ms: number): unknown => {
    this.pending = { fn, ms }
    this.delays.push(ms)
    for (const resolve of this.armed.splice(0)) resolve()
    return fn
  }

  clearTimeout = (): void => {
    this.pending = null
  }

  /** Fires the waiting timer and resolves once the schedule has armed the next one (its backup is over). */
  async fire(): Promise<void> {
    const pending = this.pending
    assert.ok(pending, 'a backup is scheduled')
    this.pending = null
    const rearmed = new Promise<void>((resolve) => this.armed.push(resolve))
    pending.fn()
    await rearmed
  }
}

function metricValue(text: string, name: string): number {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `))
  assert.ok(line, `${name} is in /metrics`)
  return Number(line.slice(name.length + 1))
}

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-scheduled-'))

describe('scheduled backups (D-92) [sqlite]', () => {
  const t = new TestApp('sqlite', { BACKUP_DIR: dir, BACKUP_INTERVAL_MINUTES: '5', BACKUP_KEEP: '2' })
  const timers = new StepTimers()
  let schedule: ReturnType<typeof startBackupSchedule>

  before(async () => {
    await t.start()
    // Backups are named and timed by this clock alone.
    t.clock.freeze()
    await createCustomer(t)
    assert.ok(t.app.backupMetrics)
    schedule = startBackupSchedule({ settings: t.config, metrics: t.app.backupMetrics, clock: t.clock, logger: t.app.log, timers })
  })
  after(async () => {
    await schedule?.stop()
    await t.stop()
    fs.rmSync(dir, { recursive: true, force: true })
  })

  const metrics = async () => {
    const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: t.auth.admin } })
    assert.equal(response.statusCode, 200, response.body)
    return response.body
  }

  it('should take nothing before the first interval and show no success yet', async () => {
    assert.deepEqual(timers.delays, [5 * 60_000])
    assert.deepEqual(fs.readdirSync(dir), [])
    const text = await metrics()
    assert.equal(metricValue(text, 'backup_last_success_timestamp_seconds'), 0)
    assert.equal(metricValue(text, 'backup_failures_total'), 0)
  })

  it('should take a backup each interval, keep the newest BACKUP_KEEP and show the last success', async () => {
    const taken: string[] = []
    for (let i = 0; i < 3; i++) {
      t.clock.advance(5 * 60_000)
      await timers.fire()
      const names = fs.readdirSync(dir).sort()
      taken.push(names.at(-1)!)
    }
    assert.equal(new Set(taken).size, 3)
    assert.deepEqual(fs.readdirSync(dir).sort(), taken.slice(1))
    const text = await metrics()
    assert.equal(metricValue(text, 'backup_last_success_timestamp_seconds'), t.clock.now() / 1000)
    assert.equal(metricValue(text, 'backup_failures_total'), 0)
  })

  it('should count a failure, log a warning, keep /readyz and requests answering, and succeed at the next interval', async () => {
    const lastSuccess = metricValue(await metrics(), 'backup_last_success_timestamp_seconds')
    const kept = fs.readdirSync(dir)
    // The directory is gone and a file stands in its place: nothing can be written there.
    const aside = `${dir}.aside`
    fs.renameSync(dir, aside)
    fs.writeFileSync(dir, '')
    t.clock.advance(5 * 60_000)
    await timers.fire()
    const failed = await metrics()
    assert.equal(metricValue(failed, 'backup_failures_total'), 1)
    assert.equal(metricValue(failed, 'backup_last_success_timestamp_seconds'), lastSuccess)
    assert.ok(
      t.logs.some((line) => /"level":(40|"warn")/.test(line) && line.includes('scheduled backup failed')),
      t.logs.join('')
    )
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' })
    assert.equal(ready.statusCode, 200, ready.body)
    await createCustomer(t)

    fs.rmSync(dir)
    fs.renameSync(aside, dir)
    t.clock.advance(5 * 60_000)
    await timers.fire()
    const again = await metrics()
    assert.equal(metricValue(again, 'backup_failures_total'), 1)
    assert.equal(metricValue(again, 'backup_last_success_timestamp_seconds'), t.clock.now() / 1000)
    assert.equal(fs.readdirSync(dir).filter((name) => !kept.includes(name)).length, 1)
    assert.equal(fs.readdirSync(dir).length, 2)
  })
})

describe('scheduled backups off without BACKUP_DIR (D-92) [sqlite]', () => {
  const t = new TestApp('sqlite')
  before(() => t.start())
  after(() => t.stop())

  it('should have no backup metrics and no schedule', async () => {
    assert.equal(t.app.backupMetrics, null)
    const response = await t.app.inject({ method: 'GET', url: '/metrics', headers: { authorization: t.auth.admin } })
    assert.doesNotMatch(response.body, /backup_/)
  })
})

describe('the API process with BACKUP_DIR (D-92) [sqlite]', () => {
  it('should serve the backup metrics from the start, answer /readyz, and close with its schedule', async () => {
    const test = await createTestDatabase('sqlite')
    const backups = fs.mkdtempSync(path.join(os.tmpdir(), 'so-server-backups-'))
    try {
      const file = test.database.kind === 'sqlite' ? test.database.file : ''
      const config = loadConfig({
        DATABASE_URL: `sqlite:${file}`,
        DATA_DIR: test.dataDir,
        PORT: '0',
        DISPATCHER: 'off',
        BACKUP_DIR: backups
      })
      const server = await startServer(config, { logger: createLogger('silent') })
      try {
        const text = await (await fetch(`${server.url}/metrics`)).text()
        assert.equal(metricValue(text, 'backup_last_success_timestamp_seconds'), 0)
        assert.equal(metricValue(text, 'backup_failures_total'), 0)
        assert.equal((await fetch(`${server.url}/readyz`)).status, 200)
      } finally {
        await server.close(1000)
      }
      // The first backup is one interval after the start: none yet.
      assert.deepEqual(fs.readdirSync(backups), [])
    } finally {
      await test.drop()
      fs.rmSync(backups, { recursive: true, force: true })
    }
  })
})
