import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import pg from 'pg'
import { type LoadEvent, lostWrites, MixedLoad, prepareFixture, probe, waitUntil } from '../test/helpers/chaos-load.js'
import { PrivateCluster, privateClusterUnavailable } from '../test/helpers/private-postgres.js'
import { log } from './driver.js'
import { BENCH_DIR, BOOTSTRAP, buildServer, createDatabase, freePort, ROOT, startApiServer } from './environment.js'
import type { Child } from './processes.js'

/**
 * `npm run chaos`: PostgreSQL ends the API's sessions under load, again and again, and
 * the API (`node dist/main.js`, as `npm start` runs it) must stay up, answer 503 while the database
 * is away, resume by itself and keep every write it acknowledged. Part one terminates the API's
 * backends on the shared server (its own database only); part two restarts a private cluster.
 * Prints per fault the 503s and the time until writes succeed again, then the writes lost.
 */

const USAGE = `npm run chaos -- [options]

  --clients N            concurrent clients, writes and reads (default 16)
  --terminations N       pg_terminate_backend rounds on the shared server (default 5)
  --restarts N           pg_ctl restart rounds of a private cluster (default 3; 0: none)
  --postgres-url URL     shared server (default postgres://postgres@127.0.0.1:5432/postgres)
  --no-build             use the last build in .bench/build
`

const AUTH = `Basic ${Buffer.from(`${BOOTSTRAP.id}:${BOOTSTRAP.secret}`).toString('base64')}`

function options() {
  const { values } = parseArgs({
    options: {
      clients: { type: 'string', default: '16' },
      terminations: { type: 'string', default: '5' },
      restarts: { type: 'string', default: '3' },
      'postgres-url': { type: 'string', default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
      'no-build': { type: 'boolean', default: false },
      help: { type: 'boolean', default: false }
    }
  })
  if (values.help) {
    process.stdout.write(USAGE)
    process.exit(0)
  }
  const count = (name: string, raw: string) => {
    const n = Number(raw)
    if (!Number.isInteger(n) || n < 0) throw new Error(`--${name} must be a whole number`)
    return n
  }
  return {
    clients: Math.max(1, count('clients', values.clients)),
    terminations: count('terminations', values.terminations),
    restarts: count('restarts', values.restarts),
    postgresUrl: values['postgres-url'],
    build: !values['no-build']
  }
}

/** One fault's figures, from the load's answers between it and the next. */
interface Round {
  fault: string
  unavailable: number
  /** From the fault to the first write acknowledged that was sent after the round's last 503. */
  recoveredMs: number
  readyz: number
}

function figures(fault: string, events: readonly LoadEvent[], from: number, readyz: number): Round {
  const failed = events.filter((event) => event.kind !== 'ok' && event.received >= from)
  const lastFailureSent = Math.max(from, ...failed.map((event) => event.sent))
  const acked = events.filter((event) => event.write && event.kind === 'ok' && event.sent >= lastFailureSent)
  const recoveredAt = Math.min(...acked.map((event) => event.received))
  return { fault, unavailable: failed.filter((event) => event.kind === 'unavailable').length, recoveredMs: recoveredAt - from, readyz }
}

interface Part {
  name: string
  rounds: Round[]
  answers: number
  acknowledged: number
  lost: string[]
  unexpected: string[]
  alive: boolean
}

/**
 * Starts the API on `databaseUrl`, runs the load, applies `fault` `rounds` times (each once the
 * load has resumed after the one before), then reads back every acknowledged write.
 */
async function runPart(
  name: string,
  entry: string,
  databaseUrl: string,
  runDir: string,
  clients: number,
  rounds: number,
  fault: () => Promise<void>
): Promise<Part> {
  const port = await freePort()
  const api: Child = await startApiServer({
    entry,
    databaseUrl,
    port,
    cpu: null,
    logLevel: 'warn',
    synchronous: 'FULL',
    dataDir: path.join(runDir, `data-${name}`),
    logFile: path.join(runDir, `server-${name}.log`)
  })
  const url = `http://127.0.0.1:${port}`
  const load = new MixedLoad(url, AUTH, await prepareFixture(url, AUTH))
  const alive = () => api.process.exitCode === null && api.process.signalCode === null
  const resumed = (since: number, what: string) =>
    waitUntil(`writes acknowledged after ${what}`, () => {
      if (!alive())
        throw new Error(
          `the API exited (${api.process.exitCode ?? api.process.signalCode}); its log: ${path.join(runDir, `server-${name}.log`)}`
        )
      return load.writesSince(since) >= 50 && performance.now() - since > 1500
    })
  try {
    await load.start(clients)
    await resumed(0, 'the start')
    const results: Round[] = []
    for (let round = 1; round <= rounds; round++) {
      const since = performance.now()
      await fault()
      await resumed(since, `${name} ${round}`)
      results.push(figures(`${name} ${round}`, load.events, since, await probe(url, '/readyz')))
      log(
        `  ${name} ${round}: ${results.at(-1)!.unavailable} answered 503, writes acknowledged again after ${Math.round(results.at(-1)!.recoveredMs)} ms`
      )
    }
    await load.stop()
    const lost = await lostWrites(url, AUTH, load)
    return {
      name,
      rounds: results,
      answers: load.events.length,
      acknowledged: load.orders.size + load.customers.size,
      lost,
      unexpected: load.unexpected,
      alive: alive()
    }
  } finally {
    await load.stop()
    await api.stop()
  }
}

/** Ends every session of `database` on the shared server, as `pg_terminate_backend` by an operator. */
function terminator(adminUrl: string, database: string): () => Promise<void> {
  return async () => {
    const admin = new pg.Client({ connectionString: adminUrl })
    await admin.connect()
    try {
      await admin.query('select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()', [database])
    } finally {
      await admin.end()
    }
  }
}

async function main(): Promise<void> {
  const opts = options()
  const entry = opts.build ? buildServer(log) : path.join(BENCH_DIR, 'build', 'dist', 'main.js')
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)
  const runDir = path.join(BENCH_DIR, 'runs', `chaos-${stamp}`)
  fs.mkdirSync(runDir, { recursive: true })
  const parts: Part[] = []

  if (opts.terminations > 0) {
    log(`terminating the API's backends ${opts.terminations} times under ${opts.clients} clients…`)
    const database = await createDatabase('postgres', runDir, `chaos_${process.pid}`, opts.postgresUrl)
    try {
      const name = new URL(database.url).pathname.slice(1)
      parts.push(
        await runPart('termination', entry, database.url, runDir, opts.clients, opts.terminations, terminator(opts.postgresUrl, name))
      )
    } finally {
      await database.drop().catch((error: unknown) => log(`could not drop the chaos database: ${String(error)}`))
    }
  }

  const noCluster = privateClusterUnavailable()
  if (opts.restarts > 0 && noCluster !== null) log(`no private cluster restarts: ${noCluster}`)
  if (opts.restarts > 0 && noCluster === null) {
    log(`restarting a private PostgreSQL cluster ${opts.restarts} times (pg_ctl restart -m fast) under ${opts.clients} clients…`)
    const cluster = await PrivateCluster.create()
    try {
      parts.push(await runPart('restart', entry, cluster.url(), runDir, opts.clients, opts.restarts, () => cluster.restart('fast')))
    } finally {
      await cluster.destroy()
    }
  }

  log('')
  log('fault            503s   writes again after (ms)   /readyz after')
  for (const part of parts) {
    for (const round of part.rounds)
      log(
        `${round.fault.padEnd(16)} ${String(round.unavailable).padStart(5)} ${String(Math.round(round.recoveredMs)).padStart(25)} ${String(round.readyz).padStart(15)}`
      )
  }
  log('')
  for (const part of parts) {
    log(
      `${part.name}: ${part.answers} answers, ${part.acknowledged} creations acknowledged, ${part.lost.length} lost, ${part.unexpected.length} unexpected answers, API ${part.alive ? 'up' : 'exited'}`
    )
    for (const line of [...part.lost, ...part.unexpected].slice(0, 10)) log(`  ${line}`)
  }
  const passed = parts.length > 0 && parts.every((part) => part.alive && part.lost.length === 0 && part.unexpected.length === 0)
  const resultsDir = path.join(BENCH_DIR, 'results')
  fs.mkdirSync(resultsDir, { recursive: true })
  const file = path.join(resultsDir, `chaos-${stamp}.json`)
  fs.writeFileSync(file, JSON.stringify({ kind: 'chaos', startedAt: stamp, clients: opts.clients, parts, passed }, null, 2))
  log(`report: ${path.relative(ROOT, file)}`)
  log(passed ? 'PASS' : 'FAIL')
  process.exitCode = passed ? 0 : 1
}

main().catch((error: unknown) => {
  process.stderr.write(`chaos: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
