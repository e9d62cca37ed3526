import { randomBytes } from 'node:crypto'
import { after, before, describe } from 'node:test'
import type { InjectOptions, LightMyRequestResponse } from 'fastify'
import { buildApp } from '../../src/app.js'
import type { Clock } from '../../src/common/clock.js'
import { newTransactionCode } from '../../src/common/ids.js'
import { type Config, loadConfig } from '../../src/config.js'
import { type Database, openDatabase } from '../../src/db/database.js'
import { migrateToLatest } from '../../src/db/migrator.js'
import { ApiKeysService } from '../../src/modules/api-keys/api-keys.service.js'
import type { App } from '../../src/platform/app-types.js'
import { createLogger } from '../../src/platform/logger.js'
import { createTestDatabase, type DialectName, type TestDatabase, testDialects } from './databases.js'

/** Every dialect this run covers; PostgreSQL only when a server is reachable. */
export const DIALECTS: DialectName[] = await testDialects()

/** Real time plus an offset tests can move forward (expiry, windows, 24-hour keys). */
class TestClock implements Clock {
  private offset = 0
  private frozenAt: number | null = null
  now(): number {
    return this.frozenAt ?? Date.now() + this.offset
  }
  advance(ms: number): void {
    this.offset += ms
    if (this.frozenAt !== null) this.frozenAt += ms
  }
  /** Stops the clock at its current time (until `thaw`): everything then happens in the same millisecond. */
  freeze(): void {
    this.frozenAt = this.now()
  }
  thaw(): void {
    this.frozenAt = null
  }
}

/** Transaction codes drawn at random (D-50), but for those queued in `next`, drawn first. */
class TestCodes {
  readonly next: number[] = []
  readonly draw = (): number => this.next.shift() ?? newTransactionCode()
}

/** HTTP Basic header value for a user name and password. */
export function basic(user: string, password: string): string {
  return `Basic ${Buffer.from(`${user}:${password}`, 'utf8').toString('base64')}`
}

export interface PostOptions {
  /** Authorization header value; null sends none. Defaults to the staff key. */
  auth?: string | null
  headers?: Record<string, string>
  /** A raw payload sent as is (with `contentType`), instead of JSON of `body`. */
  raw?: string | Buffer
  contentType?: string
  method?: InjectOptions['method']
}

/** One app on a fresh database of one dialect, with admin, staff and app keys, and captured logs. */
export class TestApp {
  app!: App
  database!: Database
  config!: Config
  readonly clock = new TestClock()
  readonly codes = new TestCodes()
  readonly logs: string[] = []
  readonly auth = { admin: '', staff: '', app: '' }
  private testDatabase!: TestDatabase

  constructor(
    readonly dialect: DialectName,
    private readonly env: Record<string, string> = {}
  ) {}

  async start(): Promise<void> {
    this.testDatabase = await createTestDatabase(this.dialect)
    const url = this.testDatabase.database.kind === 'sqlite' ? `sqlite:${this.testDatabase.database.file}` : this.testDatabase.database.url
    this.config = loadConfig({
      DATABASE_URL: url,
      DATA_DIR: this.testDatabase.dataDir,
      LOG_LEVEL: 'info',
      DISPATCHER: 'off',
      ...this.env
    })
    this.database = openDatabase(this.config)
    await migrateToLatest(this.database.db, this.database.dialect)
    const logger = createLogger('info', { write: (line: string) => void this.logs.push(line) })
    this.app = await buildApp({
      config: this.config,
      database: this.database,
      dataKey: randomBytes(32),
      clock: this.clock,
      logger,
      drawTransactionCode: this.codes.draw
    })
    await this.app.ready()
    const keys = new ApiKeysService(this.database, this.clock)
    for (const role of ['admin', 'staff', 'app'] as const) {
      const key = await keys.create(role, `test ${role}`)
      this.auth[role] = basic(key.id, key.secret)
    }
  }

  async stop(): Promise<void> {
    await this.app?.close()
    await this.database?.close()
    await this.testDatabase?.drop()
  }

  /** POSTs `body` as JSON (or `options.raw`) to `path`, with the staff key unless told otherwise. */
  post(path: string, body?: unknown, options: PostOptions = {}): Promise<LightMyRequestResponse> {
    const headers: Record<string, string> = { ...options.headers }
    const auth = options.auth === undefined ? this.auth.staff : options.auth
    if (auth !== null) headers.authorization = auth
    let payload: string | Buffer | undefined
    if (options.raw !== undefined) {
      payload = options.raw
      if (options.contentType !== undefined) headers['content-type'] = options.contentType
    } else if (body !== undefined) {
      payload = JSON.stringify(body)
      headers['content-type'] = options.contentType ?? 'application/json'
    }
    return this.app.inject({ method: options.method ?? 'POST', url: path, headers, ...(payload === undefined ? {} : { payload }) })
  }

  /** Counts the SQL statements run while `fn` runs. */
  async countQueries<T>(fn: () => Promise<T>): Promise<{ result: T; queries: string[] }> {
    const queries: string[] = []
    const stop = this.database.queries.add((sqlText) => queries.push(sqlText))
    try {
      return { result: await fn(), queries }
    } finally {
      stop()
    }
  }
}

/**
 * Defines the same suite once per dialect, each on its own fresh database (ARCHITECTURE 12).
 * `env` adds configuration variables for the suite's app.
 */
export function describeEachDialect(title: string, body: (t: TestApp) => void, env: Record<string, string> = {}): void {
  for (const dialect of DIALECTS) {
    describe(`${title} [${dialect}]`, () => {
      const t = new TestApp(dialect, env)
      before(() => t.start())
      after(() => t.stop())
      body(t)
    })
  }
}
