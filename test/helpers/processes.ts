import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import type { TestDatabase } from './databases.js'

/** The repository root: spawned commands run from here, as `npm start` would. */
export const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..')

// scripts/run-tests.mjs builds dist/ before any test runs: children then start the built code, as
// `npm start` does. A file run on its own (node --import tsx --test …) starts the sources instead.
const BUILT = process.env.TEST_DIST_BUILT === '1'

/** The command-line entry point (`service-ordering …`) a child process runs. */
export const CLI = BUILT ? 'dist/cli.js' : 'src/cli.ts'
/** The server entry point (`npm start`) a child process runs. */
export const MAIN = BUILT ? 'dist/main.js' : 'src/main.ts'

/** Node's arguments to run a script: built JavaScript as it is, TypeScript through tsx. */
export function nodeArgs(script: string): string[] {
  return script.endsWith('.ts') ? ['--import', 'tsx', script] : [script]
}

/**
 * A package.json script (`exec node … dist/main.js`) as a shell runs it here, on the entry points
 * above; its build step is left out (the runner built dist/, or the sources run through tsx).
 */
export function npmScriptCommand(script: string): string {
  script = script.replace(/^node scripts\/build\.mjs && /, '')
  if (BUILT) return script.replace(/\bnode /, `${process.execPath} `)
  return script.replace(/\bnode /, `${process.execPath} --import tsx `).replace(/dist\/(\w+)\.js/, 'src/$1.ts')
}

// Variables of the service (D-02) and of the test runner a child must not inherit by accident.
const INHERITED_OUT = [
  'PORT',
  'HOST',
  'DATABASE_URL',
  'DATA_DIR',
  'TIME_ZONE',
  'PUBLIC_URL',
  'SMTP_URL',
  'MAIL_FROM',
  'SMS_WEBHOOK_URL',
  'WEBHOOK_URL',
  'WEBHOOK_SECRET',
  'BOOTSTRAP_API_KEY',
  'CARD_ENCRYPTION_KEY',
  'LOG_LEVEL',
  'TRUST_PROXY',
  'DISPATCHER',
  // Issue 10: processes, pool limits and shared rate limits.
  'WORKERS',
  'REDIS_URL',
  'DATABASE_POOL_MAX',
  'DATABASE_POOL_TIMEOUT_MS',
  'DATABASE_POOL_QUEUE_MAX',
  'STATEMENT_TIMEOUT_MS',
  'NODE_ENV',
  'NODE_TEST_CONTEXT',
  'NODE_OPTIONS'
]

/** The environment of a child process: the parent's PATH and friends, the service's variables only as given. */
export function childEnv(env: Record<string, string>): NodeJS.ProcessEnv {
  const base: NodeJS.ProcessEnv = { ...process.env }
  for (const name of INHERITED_OUT) delete base[name]
  return { ...base, ...env }
}

/** DATABASE_URL of a test database, as an operator would write it. */
export function databaseUrl(test: TestDatabase): string {
  return test.database.kind === 'sqlite' ? `sqlite:${test.database.file}` : test.database.url
}

/** A spawned `node <script> …` (CLI, MAIN or a TypeScript fixture) with its output collected line by line. */
export class Child {
  readonly stdout: string[] = []
  readonly stderr: string[] = []
  /** Resolves with the exit code (or the signal's name) once the process has ended. */
  readonly exited: Promise<number | string>
  private readonly process: ChildProcessWithoutNullStreams
  private readonly waiters = new Set<() => void>()
  private exitValue: number | string | undefined

  constructor(script: string, args: readonly string[], env: Record<string, string>) {
    this.process = spawn(process.execPath, [...nodeArgs(script), ...args], {
      cwd: ROOT,
      env: childEnv(env),
      stdio: ['pipe', 'pipe', 'pipe']
    })
    this.collect(this.process.stdout, this.stdout)
    this.collect(this.process.stderr, this.stderr)
    this.exited = new Promise((resolve) => {
      this.process.on('close', (code, signal) => {
        this.exitValue = code ?? signal ?? 'unknown'
        this.notify()
        resolve(this.exitValue)
      })
    })
  }

  get pid(): number {
    return this.process.pid!
  }

  private collect(stream: NodeJS.ReadableStream, lines: string[]): void {
    let partial = ''
    stream.setEncoding('utf8')
    stream.on('data', (chunk: string) => {
      partial += chunk
      const parts = partial.split('\n')
      partial = parts.pop()!
      lines.push(...parts)
      this.notify()
    })
    stream.on('end', () => {
      if (partial !== '') lines.push(partial)
      partial = ''
      this.notify()
    })
  }

  private notify(): void {
    for (const waiter of this.waiters) waiter()
  }

  /** Writes to the child's standard input. */
  write(text: string): void {
    this.process.stdin.write(text)
  }

  /** Closes the child's standard input. */
  endInput(): void {
    this.process.stdin.end()
  }

  /** Stops reading the child's standard output: its next writes there fail with EPIPE. */
  closeOutput(): void {
    this.process.stdout.destroy()
  }

  /** Sends a signal to this child (and only this child). */
  kill(signal: NodeJS.Signals): void {
    this.process.kill(signal)
  }

  /**
   * Resolves with the first stdout line `match` accepts; rejects when the process ends first or
   * after `timeoutMs` (generous: a loaded machine may take seconds to start a process).
   */
  waitForLine(match: (line: string) => boolean, timeoutMs = 60_000): Promise<string> {
    return new Promise((resolve, reject) => {
      const check = () => {
        const found = this.stdout.find(match)
        if (found !== undefined) return done(() => resolve(found))
        if (this.exitValue !== undefined) {
          return done(() =>
            reject(
              new Error(`process ended (${this.exitValue}) first; stdout:\n${this.stdout.join('\n')}\nstderr:\n${this.stderr.join('\n')}`)
            )
          )
        }
      }
      const timer = setTimeout(
        () =>
          done(() =>
            reject(
              new Error(`no matching line within ${timeoutMs} ms; stdout:\n${this.stdout.join('\n')}\nstderr:\n${this.stderr.join('\n')}`)
            )
          ),
        timeoutMs
      )
      const done = (finish: () => void) => {
        clearTimeout(timer)
        this.waiters.delete(check)
        finish()
      }
      this.waiters.add(check)
      check()
    })
  }

  /** Resolves with the exit code, or rejects after `timeoutMs` (and kills the child). */
  async exit(timeoutMs = 60_000): Promise<number | string> {
    let timer: NodeJS.Timeout | undefined
    const timeout = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => {
        this.process.kill('SIGKILL')
        reject(
          new Error(`process did not end within ${timeoutMs} ms; stdout:\n${this.stdout.join('\n')}\nstderr:\n${this.stderr.join('\n')}`)
        )
      }, timeoutMs)
    })
    try {
      return await Promise.race([this.exited, timeout])
    } finally {
      clearTimeout(timer)
    }
  }

  /** Kills the child if it is still running; for `after` hooks. */
  async stop(): Promise<void> {
    if (this.exitValue === undefined) {
      this.process.kill('SIGKILL')
      await this.exited
    }
  }
}

/** Runs `node <script> …` to the end; for short commands such as the CLI. */
export async function run(
  script: string,
  args: readonly string[],
  env: Record<string, string>,
  options: { stdin?: string; timeoutMs?: number } = {}
): Promise<{ code: number | string; stdout: string; stderr: string }> {
  const child = new Child(script, args, env)
  child.write(options.stdin ?? '')
  child.endInput()
  const code = await child.exit(options.timeoutMs ?? 90_000)
  return { code, stdout: child.stdout.map((l) => `${l}\n`).join(''), stderr: child.stderr.map((l) => `${l}\n`).join('') }
}

/** Resolves once nothing accepts TCP connections on the port (ECONNREFUSED), polling. */
export async function waitUntilRefused(port: number, host = '127.0.0.1', timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  for (;;) {
    const refused = await new Promise<boolean>((resolve) => {
      const socket = net.connect({ port, host })
      socket.once('connect', () => {
        socket.destroy()
        resolve(false)
      })
      socket.once('error', (error: NodeJS.ErrnoException) => resolve(error.code === 'ECONNREFUSED'))
    })
    if (refused) return
    if (Date.now() > deadline) throw new Error(`port ${port} still accepts connections after ${timeoutMs} ms`)
    await new Promise((resolve) => setTimeout(resolve, 50))
  }
}
