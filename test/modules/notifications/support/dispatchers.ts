import { type ChildProcess, spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import type { Clock } from '../../../../src/common/clock.js'
import type { Database } from '../../../../src/db/database.js'
import { contactSelect } from '../../../../src/modules/customers/index.js'
import type { ChannelSet } from '../../../../src/modules/notifications/channels/channel.js'
import { createDispatcher, type NotificationSettings } from '../../../../src/modules/notifications/index.js'
import type { Dispatcher, DispatcherOptions } from '../../../../src/modules/notifications/outbox.dispatcher.js'
import { trackedHistoryInsert } from '../../../../src/modules/orders/index.js'
import { createLogger } from '../../../../src/platform/logger.js'
import type { TestApp } from '../../../helpers/app.js'
import { CLI, childEnv, nodeArgs, ROOT } from '../../../helpers/processes.js'

/** The data key the tests seal reset links with; the dispatchers they build unseal with it. */
export const DATA_KEY = randomBytes(32)

/** A Standard Webhooks secret (`whsec_` and 32 random bytes in base64). */
export function webhookSecret(): string {
  return `whsec_${randomBytes(32).toString('base64')}`
}

export interface TestDispatcherOptions {
  settings?: Partial<NotificationSettings>
  options?: Partial<DispatcherOptions>
  channels?: Partial<ChannelSet>
  /** Another connection to the same database, as a second process would have. */
  database?: Database
  /** Defaults to the suite's test clock. */
  clock?: Clock
}

/** Dispatchers a test built; stopped after each test. */
export class Dispatchers {
  readonly logs: string[] = []
  private readonly started: Dispatcher[] = []

  constructor(private readonly t: TestApp) {}

  /** A fresh data directory for the file fallbacks of one test. */
  dataDir(): string {
    const dir = path.join(this.t.config.dataDir, `n-${randomBytes(4).toString('hex')}`)
    fs.mkdirSync(dir, { recursive: true })
    return dir
  }

  /**
   * A dispatcher on the suite's database with the test clock, polling every 20 ms; by default with
   * no SMTP, gateway or webhook (file fallbacks under a fresh directory). Not started.
   */
  create(options: TestDispatcherOptions = {}): Dispatcher {
    const settings: NotificationSettings = {
      smtpUrl: null,
      mailFrom: 'Service Ordering <orders@example.com>',
      smsWebhookUrl: null,
      webhookUrl: null,
      webhookSecret: null,
      dataDir: this.dataDir(),
      ...options.settings
    }
    const dispatcher = createDispatcher({
      settings,
      database: options.database ?? this.t.database,
      fragments: { contact: contactSelect, trackedEntry: trackedHistoryInsert },
      dataKey: DATA_KEY,
      logger: createLogger('debug', { write: (line: string) => void this.logs.push(line) }),
      clock: options.clock ?? this.t.clock,
      options: { pollIntervalMs: 20, deliveryTimeoutMs: 10_000, ...options.options },
      // Beside the suite's app, it counts into the registry the app's /metrics serves.
      ...(options.database === undefined ? { counters: this.t.app.outboxCounters } : {}),
      ...(options.channels === undefined ? {} : { channels: options.channels })
    })
    this.started.push(dispatcher)
    return dispatcher
  }

  /** Stops every dispatcher of the test. */
  async stopAll(): Promise<void> {
    await Promise.all(this.started.splice(0).map((d) => d.stop({ drainMs: 5_000 })))
  }
}

/** The value of one series on the app's /metrics, 0 when absent. */
export async function metricValue(t: TestApp, series: string): Promise<number> {
  const response = await t.app.inject({ method: 'GET', url: '/metrics' })
  const line = response.body.split('\n').find((l) => l.startsWith(`${series} `))
  return line === undefined ? 0 : Number(line.slice(series.length + 1))
}

/** `service-ordering …` run in a child process, its output collected. */
export class Cli {
  readonly stdout: string[] = []
  readonly stderr: string[] = []
  /** The exit code, or the name of the signal that ended it. */
  readonly exited: Promise<number | string>
  private readonly child: ChildProcess

  constructor(args: readonly string[], env: Record<string, string>) {
    this.child = spawn(process.execPath, [...nodeArgs(CLI), ...args], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['ignore', 'pipe', 'pipe']
    })
    this.child.stdout!.setEncoding('utf8').on('data', (chunk: string) => this.stdout.push(...chunk.split('\n').filter((l) => l !== '')))
    this.child.stderr!.setEncoding('utf8').on('data', (chunk: string) => this.stderr.push(...chunk.split('\n').filter((l) => l !== '')))
    this.exited = new Promise((resolve) => this.child.on('close', (code, signal) => resolve(code ?? signal ?? 'unknown')))
  }

  /** Sends a signal to this child only. */
  kill(signal: NodeJS.Signals): void {
    this.child.kill(signal)
  }

  /** Both outputs, for assertion messages. */
  get output(): string {
    return `stdout:\n${this.stdout.join('\n')}\nstderr:\n${this.stderr.join('\n')}`
  }

  /** Runs a command to its end (generous time-out: a process starts slowly on a loaded machine). */
  static async run(
    args: readonly string[],
    env: Record<string, string>,
    timeoutMs = 90_000
  ): Promise<{ code: number | string; stdout: string; stderr: string }> {
    const cli = new Cli(args, env)
    let timer: NodeJS.Timeout | undefined
    const code = await Promise.race([
      cli.exited,
      new Promise<never>((_resolve, reject) => {
        timer = setTimeout(() => {
          cli.kill('SIGKILL')
          reject(new Error(`service-ordering ${args.join(' ')} did not end within ${timeoutMs} ms\n${cli.output}`))
        }, timeoutMs)
      })
    ])
    clearTimeout(timer)
    return { code, stdout: cli.stdout.join('\n'), stderr: cli.stderr.join('\n') }
  }
}

/** The environment a child needs to reach the suite's database and data directory. */
export function cliEnv(t: TestApp, extra: Record<string, string> = {}): Record<string, string> {
  const database = t.config.database
  return {
    DATABASE_URL: database.kind === 'sqlite' ? `sqlite:${database.file}` : database.url,
    DATA_DIR: t.config.dataDir,
    LOG_LEVEL: 'info',
    ...extra
  }
}
