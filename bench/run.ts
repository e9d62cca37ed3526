import fs from 'node:fs'
import path from 'node:path'
import { buildRevision, startOnNewerSchema, twinsFirst, withTwins } from './compare.js'
import { apiServerOptions, drive, expiryCheck, log, preflight, primeCredentials, rewind, type Target, waitForQuiet } from './driver.js'
import {
  BENCH_DIR,
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
import { type Options, parseOptions, USAGE } from './options.js'
import { perfAvailable, perfComparison, perfMarkdown, perfScenario } from './perf.js'
import { type Child, descendants, ForeignLoad, RssSampler, rssOfTree } from './processes.js'
import { consoleTable, evaluateTargets, type MainReport, markdown, type RunRecord, summarize } from './report.js'
import { runScaleCheck } from './scale.js'
import { buildScenarios, writeRequestFile } from './scenarios.js'
import { seed, verifyCounters } from './seed.js'
import { DEFAULT_SIZES } from './seed-data.js'

type Compared = ReturnType<typeof buildRevision>

async function main(): Promise<void> {
  const options = parseOptions(process.argv.slice(2))
  if (options === undefined) {
    process.stdout.write(USAGE)
    return
  }
  ensureWrk(log)
  if (options.perf.length > 0 && !perfAvailable()) {
    throw new Error(
      '--perf needs Linux perf (Debian: linux-perf), allowed to sample other processes (root, or kernel.perf_event_paranoid ≤ 1)'
    )
  }
  const entry = options.build ? buildServer(log) : path.join(BENCH_DIR, 'build', 'dist', 'main.js')
  if (!fs.existsSync(entry)) throw new Error(`no build at ${entry}; run without --no-build`)
  const compared = options.compare === null ? null : buildRevision(options.compare, log)
  const machine = await machineInfo(options.postgresUrl)
  if (options.db === 'postgres' && machine.postgres === null) throw new Error(`PostgreSQL does not answer at ${options.postgresUrl}`)
  log(
    `machine: ${machine.cpu}, ${machine.cores} cores, ${machine.memoryGiB} GiB, Node ${machine.node}, SQLite ${machine.sqlite}, PostgreSQL ${machine.postgres ?? '-'}; load average ${machine.loadAverage.join(' ')}`
  )
  if (options.scale) await runScaleCheck(options, entry, machine)
  else await runMain(options, entry, machine, compared)
}

async function runMain(options: Options, entry: string, machine: MainReport['machine'], compared: Compared | null): Promise<void> {
  const stamp = new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)
  const id = `${stamp}-${options.db}${options.db === 'sqlite' ? `-${options.synchronous.toLowerCase()}` : ''}${options.workers > 1 ? `-w${options.workers}` : ''}`
  const runDir = path.join(BENCH_DIR, 'runs', id)
  fs.mkdirSync(runDir, { recursive: true })
  const startedAt = new Date().toISOString()
  const database = await createDatabase(options.db, runDir, `main_${process.pid}`, options.postgresUrl)
  const children: Child[] = []
  try {
    log(`seeding ${options.db} (${DEFAULT_SIZES.customers} customers, ${DEFAULT_SIZES.transactions} transactions)…`)
    const data = await withOpenDatabase(database, (db) => seed(db, DEFAULT_SIZES, log))
    const rows = Object.entries(data.rows).map(([table, count]) => `${table} ${count}`)
    log(`seeded in ${data.seconds.toFixed(1)} s: ${rows.join(', ')}`)

    const all = buildScenarios(data)
    const scenarios = withTwins(
      options.scenarios.map((name) => all.get(name)!),
      compared?.revision ?? null
    )
    const port = { api: await freePort(), baseline: await freePort(), reference: await freePort(), compare: await freePort() }
    const baseline = await startBaseline(port.baseline, options.serverCpu, path.join(runDir, 'baseline.log'))
    children.push(baseline)
    const reference = scenarios.some((s) => s.target === 'reference')
      ? await startReference(port.reference, database.url, options.serverCpu, path.join(runDir, 'reference.log'))
      : null
    if (reference !== null) children.push(reference)
    const startApi = (build: string, at: number, logName: string, nodeFlags: string[]) =>
      startApiServer({
        entry: build,
        ...apiServerOptions(options, runDir, database.url, at, logName),
        workers: options.workers,
        redisUrl: options.redisUrl,
        nodeFlags
      })
    const api = await startApi(entry, port.api, 'server.log', options.nodeFlags)
    children.push(api)
    const twin =
      compared === null
        ? null
        : await startOnNewerSchema(database, compared.migrations, () =>
            startApi(compared.entry, port.compare, 'server-compare.log', options.compareNodeFlags)
          )
    if (twin !== null) children.push(twin)
    const pidOf = { api: () => api.pid, baseline: () => baseline.pid, reference: () => reference!.pid, compare: () => twin!.pid }
    // With --workers, RSS and CPU are those of the primary and its API processes together.
    const idleRss = rssOfTree(api.pid)
    const targets: Target[] = scenarios.map((scenario) => ({
      scenario,
      file: writeRequestFile(path.join(runDir, 'requests'), scenario),
      url: `http://127.0.0.1:${port[scenario.target]}`,
      cursor: 0
    }))
    await preflight(targets)

    const runs = new Map(scenarios.map((s) => [s.name, { title: s.title, kind: s.kind, runs: [] as RunRecord[] }]))
    const foreign = new ForeignLoad(() => [
      ...[api, twin].flatMap((server) => (server === null ? [] : [server.pid, ...descendants(server.pid)])),
      baseline.pid,
      ...(reference === null ? [] : [reference.pid])
    ])
    const minutes = (options.rounds * scenarios.length * (options.duration + options.warmup)) / 60
    log(
      `${options.rounds} rounds of ${scenarios.length} scenarios, ${options.connections} connections, ${options.workers} API process(es) on core ${options.serverCpu ?? 'any'}, wrk on core ${options.loadCpu ?? 'any'}: about ${minutes.toFixed(0)} min`
    )
    for (let round = 1; round <= options.rounds; round++) {
      for (const target of round % 2 === 0 ? twinsFirst(targets) : targets) {
        await rewind(database, target)
        await waitForQuiet(options.quietWait)
        if (target.scenario.prime === true) await primeCredentials(target, options.warmup + options.duration)
        if (options.warmup > 0) await drive(target, options, options.warmup)
        const ofApi = target.scenario.target === 'api' || target.scenario.target === 'compare'
        const sampler = new RssSampler(pidOf[target.scenario.target](), 200, ofApi)
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

    const getTransaction = targets.find((t) => t.scenario.name === 'get-transaction')
    const expiry = options.expiry && getTransaction !== undefined ? await expiryCheck(options, getTransaction, api.pid) : null
    const perf: NonNullable<MainReport['perf']> = []
    for (const target of targets.filter((t) => (options.perf as string[]).includes(t.scenario.name)))
      perf.push({ scenario: target.scenario.name, summary: await perfScenario(options, entry, database, runDir, target) })

    for (const child of children.splice(0).reverse()) await child.stop()
    const counters = await withOpenDatabase(database, (db) => verifyCounters(db.db))

    const scenarioReports = summarize(runs)
    const measured = scenarioReports.filter((s) => s.kind === 'read' || s.kind === 'write')
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
      rss: { idle: idleRss, peak: Math.max(0, ...measured.flatMap((s) => s.runs.map((r) => r.rssPeak))) },
      counters,
      perf,
      expiry,
      compared: compared === null ? null : { revision: compared.revision, commit: compared.commit },
      nodeFlags: { api: options.nodeFlags, compare: compared === null ? null : options.compareNodeFlags }
    }
    const report: MainReport = { ...partial, targets: evaluateTargets(partial) }
    const perfVersusReference = perfComparison(perf)
    const resultsDir = path.join(BENCH_DIR, 'results')
    fs.mkdirSync(resultsDir, { recursive: true })
    fs.writeFileSync(path.join(resultsDir, `${id}.json`), JSON.stringify(report, null, 2))
    const md = [
      markdown(report),
      ...(perfVersusReference === null ? [] : [`${perfVersusReference}.`, '']),
      ...perf.map((p) => perfMarkdown(`perf: ${p.scenario}`, p.summary))
    ]
    fs.writeFileSync(path.join(resultsDir, `${id}.md`), md.join('\n'))
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

main().catch((error: unknown) => {
  process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`)
  process.exit(1)
})
