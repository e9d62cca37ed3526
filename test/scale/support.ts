import assert from 'node:assert/strict'
import { randomBytes } from 'node:crypto'
import http from 'node:http'
import net from 'node:net'
import pg from 'pg'
import { basic } from '../helpers/app.js'
import type { TestDatabase } from '../helpers/databases.js'
import { Child, CLI, databaseUrl } from '../helpers/processes.js'

/**
 * Issue 10 test harness: real `service-ordering serve` and `worker` processes (through tsx) on one
 * fresh PostgreSQL database, and a small HTTP client that says which process it called.
 */

/** The admin key every process makes sure of at start (BOOTSTRAP_API_KEY). */
const ADMIN = { id: 'scale_admin', secret: randomBytes(32).toString('base64url') }
export const ADMIN_AUTH = basic(ADMIN.id, ADMIN.secret)

/** One data key for every process: the API seals reset links and cards with it, workers unseal. */
const CARD_KEY = randomBytes(32).toString('base64')

/** The environment every process of one test shares; `extra` adds or overrides variables. */
export function sharedEnv(database: TestDatabase, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PORT: '0',
    DATABASE_URL: databaseUrl(database),
    DATA_DIR: database.dataDir,
    BOOTSTRAP_API_KEY: `${ADMIN.id}:${ADMIN.secret}`,
    CARD_ENCRYPTION_KEY: CARD_KEY,
    DISPATCHER: 'off',
    // info: the "listening" and "running" lines the harness waits for are info lines.
    LOG_LEVEL: 'info',
    ...extra
  }
}

/** True when Redis answers PING on 127.0.0.1:6379 (the Redis tests skip otherwise). */
export async function redisReachable(url = 'redis://127.0.0.1:6379'): Promise<boolean> {
  const { hostname, port } = new URL(url)
  return new Promise((resolve) => {
    const socket = net.connect({ host: hostname, port: Number(port || 6379) })
    const done = (answer: boolean) => {
      socket.destroy()
      resolve(answer)
    }
    socket.setTimeout(1000, () => done(false))
    socket.once('error', () => done(false))
    socket.once('connect', () => socket.write('PING\r\n'))
    socket.once('data', (data) => done(data.toString().startsWith('+PONG')))
  })
}

/** A `service-ordering serve` process and where it listens. */
export interface ApiProcess {
  readonly name: string
  readonly child: Child
  readonly url: string
}

/**
 * Starts `service-ordering serve [args]` and waits for its "listening" line. The child joins
 * `started` at once, so an `after` hook stops it even when the wait fails.
 */
export async function startApi(name: string, env: Record<string, string>, started: Child[], args: string[] = []): Promise<ApiProcess> {
  const child = new Child(CLI, ['serve', ...args], env)
  started.push(child)
  const line = await child.waitForLine((l) => l.includes('"msg":"service-ordering is listening"'), 90_000)
  return { name, child, url: (JSON.parse(line) as { url: string }).url }
}

/** Starts `service-ordering worker` and waits until its dispatcher runs; the child joins `started` at once. */
export async function startWorker(env: Record<string, string>, started: Child[]): Promise<Child> {
  const child = new Child(CLI, ['worker'], env)
  started.push(child)
  await child.waitForLine((l) => l.includes('outbox dispatcher is running'), 90_000)
  return child
}

/** An answer: status, headers and the parsed JSON body (or the text when it is not JSON). */
export interface Answer {
  status: number
  headers: Headers
  body: any
  text: string
}

/** POSTs JSON (or nothing) to an API process with the admin key unless told otherwise. */
export async function post(
  api: ApiProcess | string,
  path: string,
  body?: unknown,
  options: { auth?: string | null; headers?: Record<string, string> } = {}
): Promise<Answer> {
  const base = typeof api === 'string' ? api : api.url
  const headers: Record<string, string> = { ...options.headers }
  const auth = options.auth === undefined ? ADMIN_AUTH : options.auth
  if (auth !== null) headers.authorization = auth
  if (body !== undefined) headers['content-type'] = 'application/json'
  const response = await fetch(`${base}${path}`, { method: 'POST', headers, body: body === undefined ? undefined : JSON.stringify(body) })
  const text = await response.text()
  let parsed: unknown = text
  try {
    parsed = JSON.parse(text)
  } catch {
    // not JSON
  }
  return { status: response.status, headers: response.headers, body: parsed, text }
}

/** Asserts a 200 and returns the body. */
export function ok(answer: Answer): Answer['body'] {
  assert.equal(answer.status, 200, answer.text)
  return answer.body
}

/** Runs a query on the test database with a short-lived client. */
export async function query<R extends pg.QueryResultRow>(database: TestDatabase, text: string, values: unknown[] = []): Promise<R[]> {
  assert.equal(database.database.kind, 'postgres')
  const client = new pg.Client({ connectionString: databaseUrl(database) })
  await client.connect()
  try {
    return (await client.query<R>(text, values)).rows
  } finally {
    await client.end()
  }
}

/** Polls `check` until it is true, or fails after `timeoutMs`. */
export async function eventually(what: string, check: () => Promise<boolean>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > deadline) assert.fail(`timed out waiting for ${what}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}

/** Stops processes with SIGTERM and checks each exits 0 (D-72), killing any that does not. */
export async function stopAll(children: Child[], timeoutMs = 30_000): Promise<Array<number | string>> {
  for (const child of children) child.kill('SIGTERM')
  return Promise.all(children.map((child) => child.exit(timeoutMs).catch(() => 'timeout')))
}

/**
 * A request the server has provably started (it answered `100 Continue`) whose body is only half
 * sent, so it stays in flight until `finish()` sends the rest (as in test/platform/shutdown.test.ts).
 */
export function startSlowRequest(
  url: string,
  path: string,
  body: string
): Promise<{ finish(): void; answer: Promise<{ status: number; body: string }> }> {
  const { hostname, port } = new URL(url)
  return new Promise((resolveStarted, rejectStarted) => {
    const payload = Buffer.from(body, 'utf8')
    const half = Math.floor(payload.length / 2)
    const request = http.request({
      host: hostname,
      port: Number(port),
      path,
      method: 'POST',
      agent: false,
      headers: {
        authorization: ADMIN_AUTH,
        'content-type': 'application/json',
        'content-length': String(payload.length),
        expect: '100-continue'
      }
    })
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      request.on('response', (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }))
        response.on('error', reject)
      })
      request.on('error', (error) => {
        rejectStarted(error)
        reject(error)
      })
    })
    answer.catch(() => {})
    request.on('continue', () => {
      request.write(payload.subarray(0, half))
      resolveStarted({ finish: () => request.end(payload.subarray(half)), answer })
    })
    request.flushHeaders()
  })
}
