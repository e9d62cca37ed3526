import fs from 'node:fs'
import path from 'node:path'
import { apiServerOptions, drive, log, type Target, waitForQuiet } from './driver.js'
import { BENCH_DIR, createDatabase, freePort, ROOT, startApiServer, startBaseline, withOpenDatabase } from './environment.js'
import type { LoadResult } from './loadgen.js'
import type { MachineInfo } from './machine.js'
import type { Options } from './options.js'
import type { Child } from './processes.js'
import { type Scenario, writeRequestFile } from './scenarios.js'
import { type SeedResult, seed } from './seed.js'
import { DEFAULT_SIZES, SCALE_SIZES, type SeedSizes } from './seed-data.js'

interface DataSet {
  label: string
  title: string
  sizes: SeedSizes
  /** Only these probes (all when undefined). */
  probes?: string[]
}

/** The scale check's data sets: 10× the customers and transactions, and 4× the services. */
const DATA_SETS: DataSet[] = [
  { label: 'small', title: '10,000 customers, 100,000 transactions, 20 services × 6 steps', sizes: DEFAULT_SIZES },
  { label: 'large', title: '100,000 customers, 1,000,000 transactions, 20 services × 6 steps', sizes: SCALE_SIZES },
  {
    label: 'wide',
    title: '10,000 customers, 100,000 transactions, 80 services × 6 steps',
    sizes: { ...DEFAULT_SIZES, services: 80 },
    probes: ['ping', 'service-stats']
  }
]

/** One fixed request each, the same at every size, so only the data changes. */
function probes(data: SeedResult): Scenario[] {
  const staff = data.staff.authorization
  const search = (name: string, title: string, query: string): Scenario => ({
    name,
    title,
    kind: 'read',
    target: 'api',
    requests: [{ method: 'POST', path: '/v1/customer/search', authorization: staff, body: JSON.stringify({ query }) }],
    countStatuses: false
  })
  return [
    {
      name: 'ping',
      title: 'baseline ping (HTTP cost alone)',
      kind: 'baseline',
      target: 'baseline',
      requests: [{ method: 'POST', path: '/v1/ping', authorization: '', body: '' }],
      countStatuses: false
    },
    search('search-last-prefix', 'search "smi" (a common last-name prefix)', 'smi'),
    search('search-first-prefix', 'search "jo" (a common first-name prefix: John, Joseph, Joshua, …)', 'jo'),
    search('search-first-name', 'search "james" (a whole common first name)', 'james'),
    search('search-two-words', 'search "jo sm" (first and last name prefixes)', 'jo sm'),
    search('search-one-letter', 'search "m" (one letter)', 'm'),
    search('search-rare', 'search "quinst" (a rare last-name prefix)', 'quinst'),
    {
      name: 'service-stats',
      title: 'service statistics',
      kind: 'read',
      target: 'api',
      requests: [{ method: 'POST', path: '/v1/service/stats', authorization: staff, body: '' }],
      countStatuses: false
    }
  ]
}

interface ProbeResult {
  dataSet: string
  probe: string
  title: string
  single: LoadResult
  loaded: LoadResult
}

const ms = (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2))

/**
 * `--scale`: each probe at one connection (its latency is the cost of one request) and at the
 * bench's connection count, on each data set. Search by prefix should grow no worse than
 * logarithmically with the customers, statistics with services × steps and not with transactions.
 */
export async function runScaleCheck(options: Options, entry: string, machine: MachineInfo): Promise<void> {
  const id = `${new Date().toISOString().replace(/[:.]/g, '-').slice(0, 19)}-scale-${options.db}`
  const runDir = path.join(BENCH_DIR, 'runs', id)
  fs.mkdirSync(runDir, { recursive: true })
  const results: ProbeResult[] = []
  const seeds: Record<string, { seconds: number; rows: Record<string, number> }> = {}
  const baselinePort = await freePort()
  const baseline = await startBaseline(baselinePort, options.serverCpu, path.join(runDir, 'baseline.log'))
  try {
    for (const set of DATA_SETS) {
      const database = await createDatabase(options.db, runDir, `scale_${set.label}_${process.pid}`, options.postgresUrl)
      let api: Child | undefined
      try {
        log(`scale check, ${set.title}: seeding ${options.db}…`)
        const data = await withOpenDatabase(database, (db) => seed(db, set.sizes, log))
        seeds[set.label] = { seconds: data.seconds, rows: data.rows }
        log(`  seeded in ${data.seconds.toFixed(1)} s`)
        const port = await freePort()
        api = await startApiServer({ entry, ...apiServerOptions(options, runDir, database.url, port, `server-${set.label}.log`) })
        for (const probe of probes(data).filter((p) => set.probes === undefined || set.probes.includes(p.name))) {
          const target: Target = {
            scenario: probe,
            file: writeRequestFile(path.join(runDir, 'requests', set.label), probe),
            url: `http://127.0.0.1:${probe.target === 'api' ? port : baselinePort}`,
            cursor: 0
          }
          await waitForQuiet(options.quietWait)
          await drive(target, options, Math.max(2, options.warmup))
          const single = await drive(target, options, options.duration, 1)
          await waitForQuiet(options.quietWait)
          const loaded = await drive(target, options, options.duration)
          results.push({ dataSet: set.label, probe: probe.name, title: probe.title, single, loaded })
          log(
            `  ${probe.name.padEnd(20)} 1 connection: mean ${ms(single.mean)} ms, p99 ${ms(single.p99)} ms | ${options.connections} connections: ${Math.round(loaded.rps)} req/s, p50 ${ms(loaded.p50)} ms, p99 ${ms(loaded.p99)} ms, errors ${single.errors + loaded.errors}`
          )
        }
      } finally {
        await api?.stop()
        if (!options.keep) await database.drop()
      }
    }
  } finally {
    await baseline.stop()
  }

  const md = scaleMarkdown(results, options, machine, seeds)
  const resultsDir = path.join(BENCH_DIR, 'results')
  fs.mkdirSync(resultsDir, { recursive: true })
  fs.writeFileSync(path.join(resultsDir, `${id}.json`), JSON.stringify({ kind: 'scale', db: options.db, machine, seeds, results }, null, 2))
  fs.writeFileSync(path.join(resultsDir, `${id}.md`), md)
  log('')
  log(md)
  log(`results: ${path.relative(ROOT, path.join(resultsDir, `${id}.json`))} and .md`)
}

function scaleMarkdown(results: ProbeResult[], options: Options, machine: MachineInfo, seeds: Record<string, { seconds: number }>): string {
  const find = (set: string, probe: string) => results.find((r) => r.dataSet === set && r.probe === probe)
  const out: string[] = []
  out.push(
    `### Scale check (${options.db === 'sqlite' ? `SQLite, synchronous=${options.synchronous}` : 'PostgreSQL'})`,
    '',
    `Each probe is one fixed request, run for ${options.duration} s at 1 connection (the mean latency is the cost of one request) and at ${options.connections} connections. ` +
      `"net" subtracts the baseline ping's latency at 1 connection (the cost of HTTP alone). Data sets: ` +
      DATA_SETS.map((s) => `**${s.label}** ${s.title} (seeded in ${seeds[s.label]?.seconds.toFixed(0) ?? '?'} s)`).join('; ') +
      `. Machine: ${machine.cpu}, ${machine.cores} cores.`,
    '',
    '| probe | data set | 1 conn mean ms | net ms | 1 conn p99 ms | req/s at 32 | p50 ms at 32 | p99 ms at 32 | growth small → large (net) |',
    '|---|---|---:|---:|---:|---:|---:|---:|---:|'
  )
  const probesSeen = [...new Set(results.map((r) => r.probe))]
  for (const probe of probesSeen) {
    for (const set of DATA_SETS) {
      const r = find(set.label, probe)
      if (r === undefined) continue
      const ping = find(set.label, 'ping')
      const net = probe === 'ping' || ping === undefined ? r.single.mean : Math.max(0, r.single.mean - ping.single.mean)
      let growth = ''
      if (set.label === 'large' || set.label === 'wide') {
        const small = find('small', probe)
        const smallPing = find('small', 'ping')
        if (small !== undefined && smallPing !== undefined && ping !== undefined && probe !== 'ping') {
          const smallNet = Math.max(0.001, small.single.mean - smallPing.single.mean)
          growth = `${(net / smallNet).toFixed(2)}× (${set.label === 'wide' ? '4× services × steps' : '10× customers and transactions'})`
        }
      }
      out.push(
        `| ${probe} | ${set.label} | ${ms(r.single.mean)} | ${probe === 'ping' ? '' : ms(net)} | ${ms(r.single.p99)} | ${Math.round(r.loaded.rps).toLocaleString('en-US')} | ${ms(r.loaded.p50)} | ${ms(r.loaded.p99)} | ${growth} |`
      )
    }
  }
  const stats = find('large', 'service-stats')
  if (stats !== undefined) {
    const met = stats.loaded.p99 < 100
    out.push(
      '',
      `Target: service statistics at 1,000,000 transactions, p99 under 100 ms at ${options.connections} connections: ${ms(stats.loaded.p99)} ms — ${met ? '✅ met' : '❌ missed'}.`
    )
  }
  out.push('')
  return out.join('\n')
}
