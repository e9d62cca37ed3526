import fs from 'node:fs'
import path from 'node:path'
import { parseArgs } from 'node:util'
import { apiServerOptions, drive, log, type Options, type Target, waitForQuiet } from './driver.js'
import {
  BENCH_DIR,
  type BenchDatabase,
  buildRevision,
  buildServer,
  createDatabase,
  freePort,
  ROOT,
  startApiServer,
  startBaseline,
  startReference,
  withOpenDatabase
} from './environment.js'
import { ensureWrk } from './loadgen.js'
import { machineInfo } from './machine.js'
import { PERF_NODE_FLAGS, perfAvailable, perfComparison, perfMarkdown, recordPerf, removePerfMap, summarizePerf } from './perf.js'
import { type Child, descendants, ForeignLoad, RssSampler, rssOfTree } from './processes.js'
import { profileMarkdown, summarizeProfile } from './profile.js'
import { consoleTable, type ExpirySlice, evaluateTargets, type MainReport, markdown, type RunRecord, summarize } from './report.js'
import { runScaleCheck } from './scale.js'
import { buildScenarios, compareTwin, SCENARIO_NAMES, type ScenarioName, twinsFirst, writeRequestFile } from './scenarios.js'
import { DEFAULT_SIZES, type SeedResult, seed, verifyCounters } from './seed.js'

const USAGE = `npm run bench -- [options]

  --db sqlite|postgres     database under test (default sqlite)
  --synchronous FULL|NORMAL  SQLite durability (default FULL, the server's default)
  --duration S             seconds per measured run (default 10)
  --warmup S               seconds of warm-up before each measured run (default 3)
  --rounds N               interleaved rounds (default 3); the median round is reported
  --connections N          concurrent connections (default 32)
  --scenarios a,b          only these (baseline always runs): ${SCENARIO_NAMES.filter((n) => n !== 'baseline').join(', ')}
  --log-level L            the server's LOG_LEVEL (default warn: no request log lines)
  --profile [a,b|all]      after the rounds, a CPU profile (node --cpu-prof) of the server under each scenario
  --profile-seconds S      load per profile (default 10)
  --perf [a,b|all]         after the rounds, Linux perf (kernel included) of a fresh server under each
                           scenario for --profile-seconds: CPU µs per request by shared object, top symbols
                           (reference-transaction too: get-transaction's CPU against the reference's)
  --perf-call-graph        with --perf, record call stacks too: the project's functions by inclusive CPU
  --scale                  the scale check: search and statistics at 10k/100k, 100k/1M (and 80 services)
  --quiet-wait S           before each run, wait up to S seconds for other work on the machine to calm down
  --expiry                 also run get-transaction for 75 s across an expiry of the 60 s credential cache
  --postgres-url URL       server to create the bench database on (default postgres://postgres@127.0.0.1:5432/postgres)
  --workers N              API processes behind one port (WORKERS=N, node:cluster; PostgreSQL only, issue 10)
  --server-cpu C|none      core the API (all its processes) is pinned to (default 0); none: unpinned
  --load-cpu C|none        core wrk is pinned to (default 1); none: unpinned
  --redis-url URL          the API's REDIS_URL (rate-limit counters shared through Redis, issue 10)
  --compare REV            also run every API scenario against the server built from git revision REV,
                           next to this build's run in each round (before it every other round), and report
                           the two builds' ratio per round (same dependencies and migrations as the working tree)
  --node-flags='F …'       Node/V8 flags for the API after npm start's own (a later flag of the same
                           name wins), e.g. --node-flags='--max-semi-space-size=8' (with the '=')
  --compare-node-flags='F …'  the same for the --compare twin (default: --node-flags); with --compare HEAD
                           and an unchanged tree, an interleaved A/B of the flags alone
  --keep                   keep the database and request files
  --no-build               use the last build in .bench/build
`

function parseOptions(argv: string[]): Options {
  const { values } = parseArgs({
    args: argv,
    options: {
      db: { type: 'string', default: 'sqlite' },
      synchronous: { type: 'string', default: 'FULL' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '32' },
      threads: { type: 'string', default: '1' },
      scenarios: { type: 'string' },
      'log-level': { type: 'string', default: 'warn' },
      profile: { type: 'string' },
      'profile-seconds': { type: 'string', default: '10' },
      perf: { type: 'string' },
      'perf-call-graph': { type: 'boolean', default: false },
      scale: { type: 'boolean', default: false },
      'quiet-wait': { type: 'string', default: '0' },
      expiry: { type: 'boolean', default: false },
      'postgres-url': { type: 'string', default: process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres' },
      keep: { type: 'boolean', default: false },
      'no-build': { type: 'boolean', default: false },
      'server-cpu': { type: 'string', default: '0' },
      'load-cpu': { type: 'string', default: '1' },
      workers: { type: 'string', default: '1' },
      'redis-url': { type: 'string' },
      compare: { type: 'string' },
      'node-flags': { type: 'string', default: '' },
      'compare-node-flags': { type: 'string' },
      help: { type: 'boolean', default: false }
    },
    allowPositionals: false
  })
  if (values.help) {
    process.stdout.write(USAGE)
    process.exit(0)
  }
  const number = (name: string, raw: string, min: number) => {
    const n = Number(raw)
    if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number ≥ ${min}`)
    return n
  }
  const flags = (name: string, raw: string) => {
    const list = raw.split(/\s+/).filter((flag) => flag !== '')
    for (const flag of list)
      if (!/^--[a-z0-9][a-z0-9_-]*(=\S+)?$/.test(flag)) throw new Error(`--${name}: ${flag} is not a --flag or --flag=value`)
    return list
  }
  const names = (raw: string | undefined, all: readonly ScenarioName[]): ScenarioName[] => {
    if (raw === undefined || raw === '' || raw === 'all') return [...all]
    const list = raw.split(',').map((s) => s.trim())
    for (const name of list)
      if (!(SCENARIO_NAMES as readonly string[]).includes(name))
        throw new Error(`unknown scenario ${name}; one of ${SCENARIO_NAMES.join(', ')}`)
    return list as ScenarioName[]
  }
  const db = values.db
  if (db !== 'sqlite' && db !== 'postgres') throw new Error('--db must be sqlite or postgres')
  const synchronous = values.synchronous.toUpperCase()
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') throw new Error('--synchronous must be FULL or NORMAL')
  const selected = names(values.scenarios, SCENARIO_NAMES)
  const cpu = (raw: string) => (raw === 'none' ? null : number('cpu', raw, 0))
  const workers = number('workers', values.workers, 1)
  if (values['perf-call-graph'] && values.perf === undefined)
    throw new Error('--perf-call-graph goes with --perf (the scenarios to sample)')
  if (workers > 1 && db !== 'postgres') throw new Error('--workers above 1 needs --db postgres (several processes cannot share SQLite)')
  return {
    db,
    synchronous,
    duration: number('duration', values.duration, 1),
    warmup: number('warmup', values.warmup, 0),
    rounds: number('rounds', values.rounds, 1),
    connections: number('connections', values.connections, 1),
    threads: number('threads', values.threads, 1),
    // The baseline runs in every round: the ratios need it.
    scenarios: ['baseline', ...selected.filter((n) => n !== 'baseline')],
    logLevel: values['log-level'],
    // Profiles are of the API server: the baseline and the reference have nothing of it to show.
    profile:
      values.profile === undefined
        ? []
        : names(
            values.profile,
            SCENARIO_NAMES.filter((n) => n !== 'baseline' && n !== 'reference-transaction')
          ),
    profileSeconds: number('profile-seconds', values['profile-seconds'], 1),
    // The reference too: its CPU per request is the yardstick for get-transaction's.
    perf:
      values.perf === undefined
        ? []
        : names(
            values.perf,
            SCENARIO_NAMES.filter((n) => n !== 'baseline')
          ),
    perfCallGraph: values['perf-call-graph'],
    scale: values.scale,
    quietWait: number('quiet-wait', values['quiet-wait'], 0),
    expiry: values.expiry,
    postgresUrl: values['postgres-url'],
    keep: values.keep,
    build: !values['no-build'],
    serverCpu: cpu(values['server-cpu']),
    loadCpu: cpu(values['load-cpu']),
    workers,
    redisUrl: values['redis-url'] ?? null,
    compare: values.compare ?? null,
    nodeFlags: flags('node-flags', values['node-flags']),
    compareNodeFlags: flags('compare-node-flags', values['compare-node-flags'] ?? values['node-flags'])
  }
}

/** Sends a scenario's first request once; throws on an answer that is not 2xx. */
async function prime(target: Target): Promise<void> {
  const request = target.scenario.requests[0]!
  const headers: Record<string, string> = {}
  if (request.authorization !== '') headers.authorization = request.authorization
  if (request.body !== '') headers['content-type'] = 'application/json'
  const response = await fetch(`${target.url}${request.path}`, {
    method: request.method,
    headers,
    body: request.body === '' ? undefined : request.body
  })
  const text = await response.text()
  if (!response.ok) throw new Error(`${target.scenario.name}: ${request.path} answered ${response.status}: ${text.slice(0, 500)}`)
}

// The server keeps a verified customer password for 60 s (D-13) and re-verifies it in the background
// on a request in its last 10 s (src/platform/credential-cache.ts); when the bench last made it verify.
const CREDENTIAL_TTL_MS = 60_000
const CREDENTIAL_REFRESH_MS = 10_000
// Per server (URL): with --compare two API processes each keep their own cache.
const verifiedAt = new Map<string, number>()
const lastVerified = (target: Target) => verifiedAt.get(target.url) ?? Number.NEGATIVE_INFINITY

/**
 * Makes the server verify the customer's password with one request, at a moment that leaves the
 * cache entry alive for the next `seconds` of load (waiting out a live entry that would expire
 * sooner), so the measured run shows the steady state; the expiry is measured by `--expiry`.
 */
async function primeCredentials(target: Target, seconds: number): Promise<void> {
  const now = Date.now()
  const expires = lastVerified(target) + CREDENTIAL_TTL_MS
  if (now < expires + 1000) {
    // A re-verification (one scrypt: CPU and 32 MiB) must not land in the measured run.
    if (now + seconds * 1000 + 2000 < expires - CREDENTIAL_REFRESH_MS) return
    await new Promise((resolve) => setTimeout(resolve, expires + 1000 - now))
  }
  await prime(target)
  verifiedAt.set(target.url, Date.now())
}

/** A scenario that consumes its data (moves) gets it back before each run, from its first request. */
async function rewind(database: BenchDatabase, target: Target): Promise<void> {
  const rewind = target.scenario.rewind
  if (rewind === undefined) return
  await withOpenDatabase(database, (db) => rewind(db))
  target.cursor = 0
}

/** Sends each scenario's first request once and fails early on an answer that is not 2xx. */
async function preflight(targets: Target[]): Promise<void> {
  // A move is not repeatable; its first run shows its statuses instead.
  for (const target of targets) if (!target.scenario.name.startsWith('move-transaction')) await prime(target)
}

function stamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)
}

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2))
  ensureWrk(log)
  if (options.perf.length > 0 && !perfAvailable()) {
    throw new Error(
      '--perf needs Linux perf (Debian: apt-get install linux-perf), allowed to sample other processes (root, or kernel.perf_event_paranoid at most 1)'
    )
  }
  const entry = options.build ? buildServer(log) : path.join(BENCH_DIR, 'build', 'dist', 'main.js')
  if (!fs.existsSync(entry)) throw new Error(`no build at ${entry}; run without --no-build`)
  if (options.compare !== null && options.scale) throw new Error('--compare goes with the main scenarios, not --scale')
  const compared = options.compare === null ? null : { revision: options.compare, ...buildRevision(options.compare, log) }
  const machine = await machineInfo(options.postgresUrl)
  if (options.db === 'postgres' && machine.postgres === null) throw new Error(`PostgreSQL does not answer at ${options.postgresUrl}`)
  log(
    `machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, SQLite ${machine.sqlite}, PostgreSQL ${machine.postgres ?? '-'}; load average ${machine.loadAverage.join(' ')}`
  )
  if (options.scale) {
    await runScaleCheck(options, entry, machine)
    return
  }
  await runMain(options, entry, machine, compared)
}

async function runMain(
  options: Options,
  entry: string,
  machine: MainReport['machine'],
  compared: { revision: string; entry: string; commit: string } | null
): Promise<void> {
  const id = `${stamp()}-${options.db}${options.db === 'sqlite' ? `-${options.synchronous.toLowerCase()}` : ''}${options.workers > 1 ? `-w${options.workers}` : ''}`
  const runDir = path.join(BENCH_DIR, 'runs', id)
  fs.mkdirSync(runDir, { recursive: true })
  const startedAt = new Date().toISOString()
  const database = await createDatabase(options.db, runDir, `main_${process.pid}`, options.postgresUrl)
  const children: Child[] = []
  try {
    log(`seeding ${options.db} (${DEFAULT_SIZES.customers} customers, ${DEFAULT_SIZES.transactions} transactions)…`)
    const data: SeedResult = await withOpenDatabase(database, (db) => seed(db, DEFAULT_SIZES, log))
    log(
      `seeded in ${data.seconds.toFixed(1)} s: ${Object.entries(data.rows)
        .map(([k, v]) => `${k} ${v}`)
        .join(', ')}`
    )

    const all = buildScenarios(data)
    // With --compare, each API scenario is followed by its twin on the other build.
    const scenarios = options.scenarios.flatMap((name) => {
      const scenario = all.get(name)!
      return compared !== null && scenario.target === 'api' ? [scenario, compareTwin(scenario, compared.revision)] : [scenario]
    })
    const [apiPort, baselinePort, referencePort, comparePort] = [await freePort(), await freePort(), await freePort(), await freePort()]
    const baseline = await startBaseline(baselinePort, options.serverCpu, path.join(runDir, 'baseline.log'))
    children.push(baseline)
    const reference = scenarios.some((s) => s.target === 'reference')
      ? await startReference(referencePort, database.url, options.serverCpu, path.join(runDir, 'reference.log'))
      : null
    if (reference !== null) children.push(reference)
    const api = await startApiServer({
      entry,
      ...apiServerOptions(options, runDir, database.url, apiPort, 'server.log'),
      workers: options.workers,
      redisUrl: options.redisUrl,
      nodeFlags: options.nodeFlags
    })
    children.push(api)
    const other =
      compared === null
        ? null
        : await startApiServer({
            entry: compared.entry,
            ...apiServerOptions(options, runDir, database.url, comparePort, 'server-compare.log'),
            workers: options.workers,
            redisUrl: options.redisUrl,
            nodeFlags: options.compareNodeFlags
          })
    if (other !== null) children.push(other)
    const pidOf = { api: () => api.pid, baseline: () => baseline.pid, reference: () => reference!.pid, compare: () => other!.pid }
    const portOf = { api: apiPort, baseline: baselinePort, reference: referencePort, compare: comparePort }
    // With --workers, RSS and CPU are those of the primary and all its API processes together.
    const idleRss = rssOfTree(api.pid)
    const targets: Target[] = scenarios.map((scenario) => ({
      scenario,
      file: writeRequestFile(path.join(runDir, 'requests'), scenario),
      url: `http://127.0.0.1:${portOf[scenario.target]}`,
      cursor: 0
    }))
    await preflight(targets)
    for (const target of targets) verifiedAt.set(target.url, Date.now())

    const runs = new Map(scenarios.map((s) => [s.name, { title: s.title, kind: s.kind, runs: [] as RunRecord[] }]))
    const foreign = new ForeignLoad(() => [
      api.pid,
      ...descendants(api.pid),
      baseline.pid,
      ...(reference === null ? [] : [reference.pid]),
      ...(other === null ? [] : [other.pid, ...descendants(other.pid)])
    ])
    const minutes = (options.rounds * scenarios.length * (options.duration + options.warmup)) / 60
    log(
      `${options.rounds} rounds of ${scenarios.length} scenarios, ${options.connections} connections, ${options.workers} API process(es) on core ${options.serverCpu ?? 'any'}, wrk on core ${options.loadCpu ?? 'any'}: about ${minutes.toFixed(0)} min`
    )
    for (let round = 1; round <= options.rounds; round++) {
      // --compare: every other round the twin goes first, so neither build always runs second.
      for (const target of round % 2 === 0 ? twinsFirst(targets) : targets) {
        await rewind(database, target)
        await waitForQuiet(options.quietWait)
        if (target.scenario.prime === true) await primeCredentials(target, options.warmup + options.duration)
        if (options.warmup > 0) await drive(target, options, options.warmup)
        const sampler = new RssSampler(
          pidOf[target.scenario.target](),
          200,
          target.scenario.target === 'api' || target.scenario.target === 'compare'
        )
        sampler.start()
        foreign.begin()
        const result = await drive(target, options, options.duration)
        const rssPeak = sampler.stop()
        const other = foreign.end()
        runs.get(target.scenario.name)!.runs.push({ round, result, rssPeak, foreignCores: other.cores, stealCores: other.steal })
        log(
          `round ${round} ${target.scenario.name.padEnd(20)} ${Math.round(result.rps).toString().padStart(6)} req/s  p50 ${result.p50.toFixed(2)} ms  p99 ${result.p99.toFixed(2)} ms  ` +
            `errors ${result.errors}${target.scenario.kind === 'write' ? `  409 ${result.expected}` : ''}  RSS ${(rssPeak / 2 ** 20).toFixed(0)} MiB  other load ${other.cores.toFixed(2)} cores, steal ${other.steal.toFixed(2)}` +
            (Object.keys(result.statuses).length > 0 ? `  statuses ${JSON.stringify(result.statuses)}` : '')
        )
      }
    }

    let expiry: ExpirySlice[] | null = null
    const getTransaction = targets.find((t) => t.scenario.name === 'get-transaction')
    if (options.expiry && getTransaction !== undefined) expiry = await expiryCheck(options, getTransaction, api.pid)

    const profiles: MainReport['profiles'] = []
    for (const name of options.profile) {
      const target = targets.find((t) => t.scenario.name === name)
      if (target === undefined) continue
      profiles.push({ scenario: name, summary: await profileScenario(options, entry, database, runDir, target) })
    }

    const perfProfiles: MainReport['perf'] = []
    for (const name of options.perf) {
      const target = targets.find((t) => t.scenario.name === name)
      if (target === undefined) continue
      perfProfiles.push({ scenario: name, summary: await perfScenario(options, entry, database, runDir, target) })
    }

    for (const child of children.splice(0).reverse()) await child.stop()
    const counters = await withOpenDatabase(database, (db) => verifyCounters(db.db))

    const scenarioReports = summarize(runs)
    const apiPeak = Math.max(
      0,
      ...scenarioReports.filter((s) => s.kind === 'read' || s.kind === 'write').flatMap((s) => s.runs.map((r) => r.rssPeak))
    )
    const partial: Omit<MainReport, 'targets'> = {
      kind: 'main',
      startedAt,
      db: options.db,
      synchronous: options.db === 'sqlite' ? options.synchronous : null,
      workers: options.workers,
      redis: options.redisUrl !== null,
      logLevel: options.logLevel,
      connections: options.connections,
      seconds: options.duration,
      warmupSeconds: options.warmup,
      rounds: options.rounds,
      machine,
      seed: { seconds: data.seconds, rows: data.rows },
      scenarios: scenarioReports,
      rss: { idle: idleRss, peak: apiPeak },
      counters,
      profiles,
      perf: perfProfiles,
      expiry,
      compared: compared === null ? null : { revision: compared.revision, commit: compared.commit },
      nodeFlags: { api: options.nodeFlags, compare: compared === null ? null : options.compareNodeFlags }
    }
    const report: MainReport = { ...partial, targets: evaluateTargets(partial) }
    const resultsDir = path.join(BENCH_DIR, 'results')
    fs.mkdirSync(resultsDir, { recursive: true })
    fs.writeFileSync(path.join(resultsDir, `${id}.json`), JSON.stringify(report, null, 2))
    const perfVersusReference = perfComparison(perfProfiles)
    const md = [
      markdown(report),
      ...profiles.map((p) => profileMarkdown(`CPU profile: ${p.scenario}`, p.summary)),
      ...(perfVersusReference === null ? [] : [`${perfVersusReference}.`, '']),
      ...perfProfiles.map((p) => perfMarkdown(`perf: ${p.scenario}`, p.summary))
    ].join('\n')
    fs.writeFileSync(path.join(resultsDir, `${id}.md`), md)
    log('')
    log(consoleTable(report))
    if (perfVersusReference !== null) log(`${perfVersusReference}.`)
    log('')
    log(`results: ${path.relative(ROOT, path.join(resultsDir, `${id}.json`))} and .md`)
    if (counters.mismatched > 0 || counters.stepCountsOff > 0) log('WARNING: step counters do not match the transactions after the run')
  } finally {
    for (const child of children.reverse()) await child.stop().catch(() => null)
    if (!options.keep) {
      await database.drop().catch((error: unknown) => log(`could not drop the bench database: ${String(error)}`))
      fs.rmSync(path.join(runDir, 'requests'), { recursive: true, force: true })
    }
  }
}

/**
 * D-13 under load: get-transaction for 75 s in 5 s slices, from one request that verified the
 * customer's password, so the 60 s cache entry expires once in the middle of the load.
 */
async function expiryCheck(options: Options, target: Target, pid: number): Promise<ExpirySlice[]> {
  log('credential cache expiry check: get-transaction for 75 s…')
  const wait = lastVerified(target) + CREDENTIAL_TTL_MS + 1000 - Date.now()
  if (wait > 0) await new Promise((resolve) => setTimeout(resolve, wait))
  await prime(target)
  verifiedAt.set(target.url, Date.now())
  const started = performance.now()
  const slices: ExpirySlice[] = []
  for (let i = 0; i < 15; i++) {
    const sampler = new RssSampler(pid)
    sampler.start()
    const from = Math.round((performance.now() - started) / 1000)
    const r = await drive(target, options, 5)
    const slice = { from, rps: r.rps, p50: r.p50, p99: r.p99, max: r.max, rssPeak: sampler.stop() }
    slices.push(slice)
    log(
      `  ${String(from).padStart(3)} s: ${Math.round(r.rps)} req/s, p50 ${r.p50.toFixed(2)} ms, p99 ${r.p99.toFixed(2)} ms, max ${r.max.toFixed(0)} ms, RSS ${(slice.rssPeak / 2 ** 20).toFixed(0)} MiB`
    )
  }
  return slices
}

/**
 * A fresh server (its own log, optionally under `node --cpu-prof`; the reference's own for its
 * scenario) driven with one scenario: its data
 * put back, the customer's password verified once, the warm-up, then `sample` runs the measured load.
 */
async function withFreshServer<R>(
  options: Options,
  entry: string,
  database: BenchDatabase,
  runDir: string,
  target: Target,
  server: { logName: string; profileDir?: string; profileName?: string; nodeFlags?: readonly string[] },
  sample: (fresh: Target, pid: number) => Promise<R>
): Promise<R> {
  const port = await freePort()
  const child =
    target.scenario.target === 'reference'
      ? await startReference(
          port,
          database.url,
          options.serverCpu,
          path.join(runDir, server.logName.replace('server', 'reference')),
          server.nodeFlags
        )
      : await startApiServer({
          entry,
          ...apiServerOptions(options, runDir, database.url, port, server.logName),
          profileDir: server.profileDir,
          profileName: server.profileName,
          nodeFlags: [...options.nodeFlags, ...(server.nodeFlags ?? [])]
        })
  try {
    await rewind(database, target)
    const fresh: Target = { ...target, url: `http://127.0.0.1:${port}` }
    if (target.scenario.prime === true) await prime(fresh)
    if (options.warmup > 0) await drive(fresh, options, options.warmup)
    const result = await sample(fresh, child.pid)
    target.cursor = fresh.cursor
    return result
  } finally {
    await child.stop()
  }
}

/** A fresh server under `node --cpu-prof`, driven with one scenario; returns the profile's summary. */
async function profileScenario(options: Options, entry: string, database: BenchDatabase, runDir: string, target: Target) {
  const profileDir = path.join(runDir, 'profiles')
  const name = `${target.scenario.name}.cpuprofile`
  fs.rmSync(path.join(profileDir, name), { force: true })
  const from = await withFreshServer(
    options,
    entry,
    database,
    runDir,
    target,
    { logName: 'server-profile.log', profileDir, profileName: name },
    async (profiled) => {
      // Only the measured load counts: start-up and warm-up samples are left out of the summary.
      const from = Number(process.hrtime.bigint() / 1000n)
      const result = await drive(profiled, options, options.profileSeconds)
      log(`profile ${target.scenario.name}: ${Math.round(result.rps)} req/s under the profiler`)
      return from
    }
  )
  const file = path.join(profileDir, name)
  if (!fs.existsSync(file)) throw new Error(`no profile written at ${file}`)
  log(`  ${path.relative(ROOT, file)}`)
  return summarizeProfile(file, { fromMicros: from })
}

/**
 * A fresh server driven with one scenario, warmed up, then sampled by Linux `perf` while it answers
 * `--profile-seconds` of load; returns the summary (CPU per request, by shared object and symbol).
 */
async function perfScenario(options: Options, entry: string, database: BenchDatabase, runDir: string, target: Target) {
  const dir = path.join(runDir, 'perf')
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${target.scenario.name}.perf.data`)
  const server = { logName: 'server-perf.log', nodeFlags: PERF_NODE_FLAGS }
  const { requests, pid } = await withFreshServer(options, entry, database, runDir, target, server, async (sampled, pid) => {
    const recording = recordPerf(pid, file, options.perfCallGraph)
    // perf attaches to every thread before the load starts; the samples before it are idle (none).
    await new Promise((resolve) => setTimeout(resolve, 300))
    const result = await drive(sampled, options, options.profileSeconds)
    await recording.stop()
    log(`perf ${target.scenario.name}: ${Math.round(result.rps)} req/s while sampled`)
    return { requests: result.requests, pid }
  })
  log(`  ${path.relative(ROOT, file)}`)
  try {
    return summarizePerf(file, requests, options.perfCallGraph)
  } finally {
    // `perf report` names JavaScript only while V8's map is there: --keep keeps it for reports by hand.
    if (!options.keep) removePerfMap(pid)
  }
}

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
