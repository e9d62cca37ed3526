import assert from 'node:assert/strict'
import { spawn } from 'node:child_process'
import fs from 'node:fs'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { after, before, describe, it } from 'node:test'
import { basic, DIALECTS } from '../helpers/app.js'
import { createTestDatabase, type TestDatabase } from '../helpers/databases.js'
import { Child, childEnv, databaseUrl, MAIN, npmScriptCommand, ROOT, waitUntilRefused } from '../helpers/processes.js'

const KEY_ID = 'drain_admin'
const SECRET = 'd'.repeat(43)

interface Answer {
  status: number
  headers: http.IncomingHttpHeaders
  body: string
}

/**
 * A request whose headers the server has provably read (it answered `100 Continue`) and whose
 * body is only partly sent, so it is in flight until `finish()` sends the rest.
 */
function startSlowRequest(
  port: number,
  path: string,
  body: string,
  agent: http.Agent | false = false
): Promise<{ finish(): void; answer: Promise<Answer> }> {
  return new Promise((resolveStarted, rejectStarted) => {
    const payload = Buffer.from(body, 'utf8')
    const half = Math.floor(payload.length / 2)
    let settled = false
    const request = http.request({
      host: '127.0.0.1',
      port,
      path,
      method: 'POST',
      agent,
      headers: {
        authorization: basic(KEY_ID, SECRET),
        'content-type': 'application/json',
        'content-length': String(payload.length),
        expect: '100-continue'
      }
    })
    const answer = new Promise<Answer>((resolve, reject) => {
      request.on('response', (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }))
        response.on('error', reject)
      })
      request.on('error', (error) => {
        if (!settled) rejectStarted(error)
        reject(error)
      })
    })
    // Awaited by the test later; a rejection before then is not "unhandled".
    answer.catch(() => {})
    request.on('continue', () => {
      request.write(payload.subarray(0, half))
      settled = true
      resolveStarted({ finish: () => request.end(payload.subarray(half)), answer })
    })
    request.flushHeaders()
  })
}

function get(port: number, path: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    http
      .get({ host: '127.0.0.1', port, path, agent: false, headers: { authorization: basic(KEY_ID, SECRET) } }, (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }))
      })
      .on('error', reject)
  })
}

function post(port: number, path: string, agent: http.Agent): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = http.request(
      { host: '127.0.0.1', port, path, method: 'POST', agent, headers: { authorization: basic(KEY_ID, SECRET) } },
      (response) => {
        let text = ''
        response.setEncoding('utf8')
        response.on('data', (chunk: string) => (text += chunk))
        response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body: text }))
      }
    )
    request.on('error', reject)
    request.end()
  })
}

/** The API on `database` as `npm start` runs it, once it says it is listening, and its port. */
async function startApi(database: TestDatabase, env: Record<string, string> = {}): Promise<{ server: Child; port: number }> {
  const server = new Child(MAIN, [], {
    PORT: '0',
    DATABASE_URL: databaseUrl(database),
    DATA_DIR: database.dataDir,
    BOOTSTRAP_API_KEY: `${KEY_ID}:${SECRET}`,
    DISPATCHER: 'off',
    ...env
  })
  const listening = await server.waitForLine((line) => line.includes('service-ordering is listening'))
  return { server, port: Number(new URL((JSON.parse(listening) as { url: string }).url).port) }
}

for (const dialect of DIALECTS) {
  describe(`SIGTERM draining (D-72) [${dialect}]`, () => {
    let database: TestDatabase
    let server: Child
    let port: number

    before(async () => {
      database = await createTestDatabase(dialect)
      ;({ server, port } = await startApi(database, { LOG_LEVEL: 'info' }))
    })

    after(async () => {
      await server?.stop()
      await database?.drop()
    })

    it('should finish a request in flight, refuse new connections and exit 0', async () => {
      assert.equal((await get(port, '/healthz')).status, 200)
      // A client that keeps its connections, as browsers and proxies do.
      const keepAlive = new http.Agent({ keepAlive: true })
      const slow = await startSlowRequest(
        port,
        '/v1/service/create',
        JSON.stringify({ service_name: 'Drained', description: 'step one' }),
        keepAlive
      )

      const started = Date.now()
      server.kill('SIGTERM')
      await server.waitForLine((line) => line.includes('shutting down'))
      // New connections are refused while the request in flight is still open.
      await waitUntilRefused(port)

      slow.finish()
      const answer = await slow.answer
      assert.equal(answer.status, 200, answer.body)
      assert.equal(answer.headers['content-type'], 'application/json; charset=utf-8')
      // Told to close: a client keeping its connection would otherwise hold the exit back (D-72).
      assert.equal(answer.headers.connection, 'close')
      assert.deepEqual(JSON.parse(answer.body), { message: 'successfully created' })

      // Exits 0 without waiting out the 10 s drain window for the client's kept connection.
      assert.equal(await server.exit(30_000), 0, server.stderr.join('\n'))
      assert.ok(Date.now() - started < 10_000, 'the answered connection must not hold the exit for the drain window')
      keepAlive.destroy()
      assert.ok(server.stdout.some((line) => line.includes('"msg":"stopped"')))
      for (const line of server.stdout) assert.doesNotThrow(() => JSON.parse(line), `not JSON: ${line}`)
    })
  })

  describe(`a second signal while draining (D-72) [${dialect}]`, () => {
    let database: TestDatabase
    let server: Child

    before(async () => {
      database = await createTestDatabase(dialect)
    })

    after(async () => {
      await server?.stop()
      await database?.drop()
    })

    it('should keep draining: the request in flight still completes and the exit is 0', async () => {
      let port: number
      ;({ server, port } = await startApi(database))
      const slow = await startSlowRequest(port, '/v1/service/create', JSON.stringify({ service_name: 'Twice signalled', description: 'x' }))

      server.kill('SIGTERM')
      await server.waitForLine((line) => line.includes('shutting down'))
      // An impatient supervisor (or a second Ctrl-C) must not cut the requests in flight.
      server.kill('SIGTERM')
      server.kill('SIGINT')
      await waitUntilRefused(port)

      slow.finish()
      const answer = await slow.answer
      assert.equal(answer.status, 200, answer.body)
      assert.deepEqual(JSON.parse(answer.body), { message: 'successfully created' })
      assert.equal(await server.exit(30_000), 0, server.stderr.join('\n'))
      assert.equal(server.stdout.filter((line) => line.includes('shutting down')).length, 1)
    })
  })

  describe(`SIGTERM with an idle server [${dialect}]`, () => {
    let database: TestDatabase
    let server: Child

    before(async () => {
      database = await createTestDatabase(dialect)
    })

    after(async () => {
      await server?.stop()
      await database?.drop()
    })

    it('should exit 0 at once, after answering a request on a kept-alive connection', async () => {
      let port: number
      ;({ server, port } = await startApi(database))
      // The client keeps its connection open after the answer, as browsers and proxies do.
      const agent = new http.Agent({ keepAlive: true })
      const answer = await post(port, '/v1/service/stats', agent)
      assert.equal(answer.status, 200)
      assert.equal(answer.headers.connection, 'keep-alive')
      const started = Date.now()
      server.kill('SIGTERM')
      assert.equal(await server.exit(30_000), 0, server.stderr.join('\n'))
      // Not a timing assertion on speed: only that it did not need the whole drain window.
      assert.ok(Date.now() - started < 10_000, 'an idle server must not wait for the drain window')
      agent.destroy()
    })

    it('should exit 0 when whatever read its output has gone away (a broken pipe)', async () => {
      ;({ server } = await startApi(database, { LOG_LEVEL: 'info' }))
      // As `npm start | head -3` once head has exited: every later log line meets EPIPE.
      server.closeOutput()
      server.kill('SIGTERM')
      // Before, the exit-time flush of pino's asynchronous stream retried the broken pipe for ever.
      assert.equal(await server.exit(30_000), 0, server.stderr.join('\n'))
    })
  })
}

// Both dialects at once: each waits out the same 10 s drain window, and waiting costs no CPU.
describe('a request that never finishes (D-72)', { concurrency: true }, () => {
  for (const dialect of DIALECTS) {
    it(`should be cut after the drain window, and the process still exit 0 [${dialect}]`, async () => {
      const database = await createTestDatabase(dialect)
      let server: Child | undefined
      try {
        let port: number
        ;({ server, port } = await startApi(database))
        const stuck = await startSlowRequest(
          port,
          '/v1/service/create',
          JSON.stringify({ service_name: 'Never finished', description: 'x' })
        )
        server.kill('SIGTERM')
        // The body is never finished: the server gives up on it after its 10 s drain window.
        assert.equal(await server.exit(60_000), 0, server.stderr.join('\n'))
        await assert.rejects(stuck.answer, (error: NodeJS.ErrnoException) => ['ECONNRESET', 'EPIPE'].includes(error.code ?? ''))
      } finally {
        await server?.stop()
        await database.drop()
      }
    })
  }
})

describe('npm start and npm run cli under a signal (D-72)', () => {
  // npm runs a script with `sh -c` and passes SIGTERM to that shell. Unless the script execs node,
  // the shell dies and the server lives on, orphaned, never draining nor exiting.
  for (const name of ['start', 'cli'] as const) {
    it(`should stop the server when the shell running the ${name} script is sent SIGTERM`, async () => {
      const scripts = (JSON.parse(fs.readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: Record<string, string> }).scripts
      // The script as written, on the entry points this run starts (npm builds dist/ first).
      const command = npmScriptCommand(scripts[name]!)
      assert.match(command, /(src\/(main|cli)\.ts|dist\/(main|cli)\.js)/)
      const dataDir = fs.mkdtempSync(path.join(os.tmpdir(), 'so-npm-start-'))
      const shell = spawn('sh', ['-c', name === 'cli' ? `${command} serve` : command], {
        cwd: ROOT,
        env: {
          ...childEnv({ PORT: '0', DATA_DIR: dataDir, DATABASE_URL: `sqlite:${path.join(dataDir, 'db.sqlite')}`, DISPATCHER: 'off' })
        },
        stdio: ['ignore', 'pipe', 'pipe'],
        // Its own process group: should the server outlive the shell, the group is killed below.
        detached: true
      })
      try {
        const port = await new Promise<number>((resolve, reject) => {
          let out = ''
          shell.stdout.on('data', (chunk: Buffer) => {
            out += chunk.toString('utf8')
            const match = /"url":"http:\/\/[^:]+:(\d+)"/.exec(out)
            if (match !== null) resolve(Number(match[1]))
          })
          shell.once('exit', (code) => reject(new Error(`exited ${code} before listening: ${out}`)))
        })
        shell.kill('SIGTERM')
        await waitUntilRefused(port, '127.0.0.1', 15_000)
      } finally {
        try {
          process.kill(-shell.pid!, 'SIGKILL')
        } catch {
          // the group is gone already
        }
        fs.rmSync(dataDir, { recursive: true, force: true })
      }
    })
  }
})
