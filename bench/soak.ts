import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { log, prime } from './driver.js'
import { BENCH_DIR, buildServer, createDatabase, freePort, ROOT, startApiServer, withOpenDatabase } from './environment.js'
import { ensureWrk, type LoadResult, runLoads } from './loadgen.js'
import { type Child, rssOf } from './processes.js'
import { buildScenarios, SCENARIO_NAMES, type ScenarioName, writeRequestFile } from './scenarios.js'
import { seed, verifyCounters } from './seed.js'
import { DEFAULT_SIZES, type SeedSizes } from './seed-data.js'

/**
 * `npm run soak`: the bench's scenarios all at once against the server as `npm start` runs it, a
 * warm-up until V8's first full collection, then a minute. Passes when no request fails (a move's
 * 409 is expected) and the median RSS of the last 20 s is less than 10% above that of the first 20 s.
 * The V8 heap after each full collection is reported too: it is what a leak would raise.
 */

const USAGE = `npm run soak -- [options]

  --db sqlite|postgres     database under test (default sqlite)
  --seconds S              measured soak (default 60)
  --warmup S               least warm-up, same traffic; it goes on until V8's first full collection (default 15)
  --warmup-max S           longest warm-up (default 240)
  --connections N          connections per scenario (default 3; 8 scenarios run at once)
  --max-growth P           RSS growth allowed after warm-up, percent (default 10)
  --postgres-url URL       server to create the soak database on (default postgres://postgres@127.0.0.1:5432/postgres)
  --scenarios a,b          only these of the mix (to find which one holds memory)
  --no-build               use the last build in .bench/build
`

// The API's scenarios, each driven by its own wrk process at the same time.
const MIX = SCENARIO_NAMES.filter((name) => name !== 'baseline' && name !== 'reference-transaction')

// Seeding takes seconds, and memory growth does not depend on the data's size.
const SOAK_SIZES: SeedSizes = { ...DEFAULT_SIZES, customers: 2000, transactions: 20_000 }

interface Sample {
  second: number
  rss: number
  /** V8 heap in use and memory outside it (Buffers, SQLite), from the server's /metrics. */
  heapUsed?: number
  external?: number
}

/** Heap in use and external memory as the server's Prometheus metrics say. */
async function heapOf(url: string): Promise<{ heapUsed?: number; external?: number }> {
  try {
    const text = await (await fetch(`${url}/metrics`, { signal: AbortSignal.timeout(2000) })).text()
    const value = (name: string) => {
      const match = new RegExp(`^service_ordering_${name} ([0-9.e+]+)$`, 'm').exec(text)
      return match === null ? undefined : Number(match[1])
    }
    return { heapUsed: value('nodejs_heap_size_used_bytes'), external: value('nodejs_external_memory_bytes') }
  } catch {
    return {}
  }
}

function options() {
  const { values } = parseArgs({
    options: {
      db: { type: 'string', default: 'sqlite' },
      seconds: { type: 'string', default: '60' },
      warmup: { type: 'string', default: '15' },
      'warmup-max': { type: 'string', default: '240' },
      connections: { type: 'string', default: '3' },
      'max-growth': { type: 'string', default: '10' },
      'postgres-url': { type: 'string', default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
      'no-build': { type: 'boolean', default: false },
      scenarios: { type: 'string' },
      help: { type: 'boolean', default: false }
    }
  })
  if (values.help) {
    process.stdout.write(USAGE)
    process.exit(0)
  }
  const db = values.db
  if (db !== 'sqlite' && db !== 'postgres') throw new Error('--db must be sqlite or postgres')
  const number = (name: string, raw: string) => {
    const n = Number(raw)
    if (!Number.isFinite(n) || n <= 0) throw new Error(`--${name} must be a positive number`)
    return n
  }
  return {
    db: db as 'sqlite' | 'postgres',
    seconds: number('seconds', values.seconds),
    warmup: number('warmup', values.warmup),
    warmupMax: number('warmup-max', values['warmup-max']),
    connections: number('connections', values.connections),
    maxGrowth: number('max-growth', values['max-growth']) / 100,
    postgresUrl: values['postgres-url'],
    build: !values['no-build'],
    scenarios: values.scenarios === undefined ? MIX : (values.scenarios.split(',') as ScenarioName[])
  }
}

/** RSS of the server once a second while `work` runs. */
async function sampled<T>(pid: number, url: string, from: number, work: Promise<T>, samples: Sample[]): Promise<T> {
  const started = performance.now()
  const timer = setInterval(() => {
    const rss = rssOf(pid)
    if (rss === null) return
    const sample: Sample = { second: from + Math.round((performance.now() - started) / 1000), rss }
    samples.push(sample)
    void heapOf(url).then((heap) => Object.assign(sample, heap))
  }, 1000)
  try {
    return await work
  } finally {
    clearInterval(timer)
  }
}

const mib = (bytes: number) => (bytes / 2 ** 20).toFixed(1)

/** The heap in use right after each full collection (a drop by a quarter or more): what the program really holds. */
function heapFloors(samples: Sample[]): Array<{ second: number; heapUsed: number }> {
  const floors: Array<{ second: number; heapUsed: number }> = []
  for (let i = 1; i < samples.length; i++) {
    const before = samples[i - 1]!.heapUsed
    const after = samples[i]!.heapUsed
    if (before !== undefined && after !== undefined && after < before * 0.75) floors.push({ second: samples[i]!.second, heapUsed: after })
  }
  return floors
}

/** The median RSS of the samples in [from, to) seconds. */
function medianRss(samples: Sample[], from: number, to: number): number {
  const values = samples
    .filter((s) => s.second >= from && s.second < to)
    .map((s) => s.rss)
    .sort((a, b) => a - b)
  if (values.length === 0) throw new Error(`no RSS samples between ${from} s and ${to} s`)
  return values[Math.floor(values.length / 2)]!
}

async function main(): Promise<void> {
  const opts = options()
  ensureWrk(log)
  const entry = opts.build ? buildServer(log) : path.join(BENCH_DIR, 'build', 'dist', 'main.js')
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)
  const runDir = path.join(BENCH_DIR, 'runs', `soak-${stamp}-${opts.db}`)
  fs.mkdirSync(runDir, { recursive: true })
  const database = await createDatabase(opts.db, runDir, `soak_${process.pid}`, opts.postgresUrl)
  let api: Child | undefined
  try {
    log(`seeding ${opts.db} (${SOAK_SIZES.customers} customers, ${SOAK_SIZES.transactions} transactions)…`)
    const data = await withOpenDatabase(database, (db) => seed(db, SOAK_SIZES, log))
    const all = buildScenarios(data)
    const targets = opts.scenarios.map((name) => {
      const scenario = all.get(name)!
      const file = writeRequestFile(path.join(runDir, 'requests'), scenario)
      return { name, file, cursor: 0, expectedStatuses: scenario.expectedStatuses ?? [] }
    })
    const port = await freePort()
    api = await startApiServer({
      entry,
      databaseUrl: database.url,
      port,
      cpu: null,
      logLevel: 'warn',
      synchronous: 'FULL',
      dataDir: path.join(runDir, 'data'),
      logFile: path.join(runDir, 'server.log')
    })
    const url = `http://127.0.0.1:${port}`
    // The customer's password is verified once, before the load (D-13).
    await prime({ scenario: all.get('get-transaction')!, file: '', url, cursor: 0 })

    const samples: Sample[] = [{ second: 0, rss: rssOf(api.pid) ?? 0 }]
    // Until V8's first full collection the heap only grows: the soak starts from the working size.
    log(
      `warm-up: ${targets.length} scenarios at once, ${opts.connections} connections each, until a full collection (at least ${opts.warmup} s, at most ${opts.warmupMax} s)`
    )
    const warm = new Map<string, LoadResult>()
    let warmed = 0
    for (;;) {
      const chunk = await sampled(api.pid, url, warmed, runLoads(url, targets, opts.connections, 5), samples)
      warmed += 5
      for (const [name, result] of chunk) warm.set(name, { ...result, errors: (warm.get(name)?.errors ?? 0) + result.errors })
      await new Promise((resolve) => setTimeout(resolve, 100))
      if (warmed >= opts.warmup && heapFloors(samples).length > 0) break
      if (warmed >= opts.warmupMax) {
        log(`  no full collection seen in ${warmed} s; going on`)
        break
      }
    }
    const baseline = Math.max(...samples.map((sample) => sample.rss))
    log(`soak: ${opts.seconds} s (warm-up took ${warmed} s; highest RSS in it ${mib(baseline)} MiB)`)
    const soak = await sampled(api.pid, url, warmed, runLoads(url, targets, opts.connections, opts.seconds), samples)
    await new Promise((resolve) => setTimeout(resolve, 1500))
    const alive = await fetch(`${url}/readyz`).then(
      (r) => r.status,
      () => 0
    )
    await api.stop()
    api = undefined
    const counters = await withOpenDatabase(database, (db) => verifyCounters(db.db))

    const end = warmed + opts.seconds
    const afterWarmup = medianRss(samples, warmed, warmed + 5)
    const atEnd = medianRss(samples, end - 5, end + 1)
    const peak = Math.max(...samples.filter((sample) => sample.second >= warmed).map((sample) => sample.rss))
    // RSS moves with the heap between collections; 20 s windows span whole collection cycles.
    const windowStart = medianRss(samples, warmed, warmed + 20)
    const windowEnd = medianRss(samples, end - 20, end + 1)
    const growth = windowEnd / windowStart - 1
    const floors = heapFloors(samples)
    log('')
    log('scenario              req/s     p50 ms   p99 ms   errors  expected  statuses')
    let errors = 0
    for (const [name, result] of soak) {
      errors += result.errors
      log(
        `${name.padEnd(20)} ${Math.round(result.rps).toString().padStart(7)} ${result.p50.toFixed(2).padStart(9)} ${result.p99.toFixed(2).padStart(8)} ${String(result.errors).padStart(8)} ${String(result.expected).padStart(9)}  ${JSON.stringify(result.statuses)}`
      )
    }
    const warmErrors = [...warm.values()].reduce((sum, r) => sum + r.errors, 0)
    log('')
    log('memory (MiB), sampled once a second:    RSS   V8 heap used   external')
    for (let second = 0; second <= end; second += 5) {
      const near = samples.filter((sample) => Math.abs(sample.second - second) <= 1)
      if (near.length === 0) continue
      const sample = near[0]!
      const heap = sample.heapUsed === undefined ? '-' : mib(sample.heapUsed)
      const external = sample.external === undefined ? '-' : mib(sample.external)
      log(
        `  ${String(second).padStart(3)} s ${mib(sample.rss).padStart(36)} ${heap.padStart(14)} ${external.padStart(10)}${second === warmed ? '  ← warm-up ends' : ''}`
      )
    }
    log('')
    log(
      `RSS: highest in the warm-up ${mib(baseline)} MiB; in the soak: first 5 s ${mib(afterWarmup)} MiB, last 5 s ${mib(atEnd)} MiB, peak ${mib(peak)} MiB`
    )
    log(
      `RSS median of 20 s: ${mib(windowStart)} MiB after the warm-up, ${mib(windowEnd)} MiB at the end: growth ${(growth * 100).toFixed(1)}% (limit ${(opts.maxGrowth * 100).toFixed(0)}%)`
    )
    log(
      `V8 heap after each full collection (MiB): ${floors.map((floor) => `${mib(floor.heapUsed)} at ${floor.second} s`).join(', ') || 'none seen'}`
    )
    log(
      `errors: ${errors} in the soak, ${warmErrors} in the warm-up; /readyz after the soak: ${alive}; step counters off: ${counters.mismatched + counters.stepCountsOff}`
    )

    const failures = [
      errors + warmErrors > 0 && 'requests failed',
      alive !== 200 && 'server not ready',
      growth >= opts.maxGrowth && `RSS grew ${(growth * 100).toFixed(1)}%`,
      counters.mismatched + counters.stepCountsOff > 0 && 'counters off'
    ].filter((failure) => failure !== false)
    const passed = failures.length === 0
    const report = {
      kind: 'soak',
      db: opts.db,
      startedAt: stamp,
      seconds: opts.seconds,
      warmupSeconds: warmed,
      connectionsPerScenario: opts.connections,
      sizes: SOAK_SIZES,
      scenarios: Object.fromEntries(
        [...soak].map(([name, r]) => [
          name,
          { rps: r.rps, p50: r.p50, p99: r.p99, max: r.max, errors: r.errors, expected: r.expected, statuses: r.statuses }
        ])
      ),
      rss: { warmupPeak: baseline, afterWarmup, atEnd, peak, windowStart, windowEnd, growth, heapFloors: floors, samples },
      errors: { soak: errors, warmup: warmErrors },
      counters,
      passed
    }
    const resultsDir = path.join(BENCH_DIR, 'results')
    fs.mkdirSync(resultsDir, { recursive: true })
    const file = path.join(resultsDir, `soak-${stamp}-${opts.db}.json`)
    fs.writeFileSync(file, JSON.stringify(report, null, 2))
    log(`report: ${path.relative(ROOT, file)}`)
    log(passed ? 'PASS' : `FAIL: ${failures.join(', ')}`)
    process.exitCode = passed ? 0 : 1
  } finally {
    await api?.stop().catch(() => null)
    await database.drop().catch((error: unknown) => log(`could not drop the soak database: ${String(error)}`))
    fs.rmSync(path.join(runDir, 'requests'), { recursive: true, force: true })
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`soak: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
