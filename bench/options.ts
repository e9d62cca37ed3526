import { parseArgs } from 'node:util'
import { SCENARIO_NAMES, type ScenarioName } from './scenarios.js'

/** `npm run bench`'s options, parsed. */
export interface Options {
  db: 'sqlite' | 'postgres'
  synchronous: 'FULL' | 'NORMAL'
  duration: number
  warmup: number
  rounds: number
  connections: number
  /** Always led by the baseline: every ratio needs it. */
  scenarios: ScenarioName[]
  logLevel: string
  /** Scenarios sampled with Linux perf after the rounds. */
  perf: ScenarioName[]
  perfSeconds: number
  perfCallGraph: boolean
  scale: boolean
  quietWait: number
  expiry: boolean
  postgresUrl: string
  keep: boolean
  build: boolean
  serverCpu: number | null
  loadCpu: number | null
  workers: number
  redisUrl: string | null
  /** A git revision whose build runs beside this one, or null. */
  compare: string | null
  nodeFlags: string[]
  compareNodeFlags: string[]
}

const API_SCENARIOS = SCENARIO_NAMES.filter((n) => n !== 'baseline')

export const USAGE = `npm run bench -- [options]

  --db sqlite|postgres     database under test (default sqlite)
  --synchronous FULL|NORMAL  SQLite durability (default FULL, the server's default)
  --duration S             seconds per measured run (default 10)
  --warmup S               seconds of warm-up before each measured run (default 3)
  --rounds N               interleaved rounds (default 3); the median round is reported
  --connections N          concurrent connections (default 32)
  --scenarios a,b          only these (baseline always runs): ${API_SCENARIOS.join(', ')}
  --log-level L            the server's LOG_LEVEL (default warn: no request log lines)
  --perf [a,b|all]         after the rounds, Linux perf of a fresh server per scenario: CPU µs per
                           request by shared object and symbol (with reference-transaction: against it)
  --perf-seconds S         load per perf sample (default 10)
  --perf-call-graph        with --perf, the project's functions by inclusive CPU
  --scale                  search and statistics at 10k/100k, 100k/1M (and 80 services)
  --quiet-wait S           before each run, wait up to S seconds for other work on the machine to calm down
  --expiry                 also run get-transaction for 75 s across an expiry of the 60 s credential cache
  --postgres-url URL       server to create the bench database on (default postgres://postgres@127.0.0.1:5432/postgres)
  --workers N              API processes behind one port (WORKERS=N; PostgreSQL only)
  --server-cpu C|none      core the API (all its processes) is pinned to (default 0); none: unpinned
  --load-cpu C|none        core wrk is pinned to (default 1); none: unpinned
  --redis-url URL          the API's REDIS_URL (rate-limit counters shared through Redis)
  --compare REV            run every API scenario also against the server built from git revision REV,
                           beside this build's in each round, and report the two builds' ratio
  --node-flags='F …'       Node/V8 flags for the API after npm start's own (a later one of the same name wins)
  --compare-node-flags='F …'  the same for the --compare twin (default: --node-flags); with --compare HEAD
                           and an unchanged tree, an A/B of the flags alone
  --keep                   keep the database, request files and perf maps
  --no-build               use the last build in .bench/build
`

const DEFAULT_POSTGRES_URL = process.env.BENCH_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

function number(name: string, raw: string, min: number): number {
  const n = Number(raw)
  if (!Number.isFinite(n) || n < min) throw new Error(`--${name} must be a number ≥ ${min}`)
  return n
}

function nodeFlags(name: string, raw: string): string[] {
  const list = raw.split(/\s+/).filter((flag) => flag !== '')
  for (const flag of list)
    if (!/^--[a-z0-9][a-z0-9_-]*(=\S+)?$/.test(flag)) throw new Error(`--${name}: ${flag} is not a --flag or --flag=value`)
  return list
}

function scenarioList(raw: string | undefined, all: readonly ScenarioName[]): ScenarioName[] {
  if (raw === undefined || raw === '' || raw === 'all') return [...all]
  const list = raw.split(',').map((s) => s.trim())
  for (const name of list)
    if (!(all as readonly string[]).includes(name)) throw new Error(`unknown scenario ${name}; one of ${all.join(', ')}`)
  return list as ScenarioName[]
}

/** Parses the command line; undefined for --help. */
export function parseOptions(argv: string[]): Options | undefined {
  const { values } = parseArgs({
    args: argv,
    options: {
      db: { type: 'string', default: 'sqlite' },
      synchronous: { type: 'string', default: 'FULL' },
      duration: { type: 'string', default: '10' },
      warmup: { type: 'string', default: '3' },
      rounds: { type: 'string', default: '3' },
      connections: { type: 'string', default: '32' },
      scenarios: { type: 'string' },
      'log-level': { type: 'string', default: 'warn' },
      perf: { type: 'string' },
      'perf-seconds': { type: 'string', default: '10' },
      'perf-call-graph': { type: 'boolean', default: false },
      scale: { type: 'boolean', default: false },
      'quiet-wait': { type: 'string', default: '0' },
      expiry: { type: 'boolean', default: false },
      'postgres-url': { type: 'string', default: DEFAULT_POSTGRES_URL },
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
  if (values.help) return undefined
  const db = values.db
  if (db !== 'sqlite' && db !== 'postgres') throw new Error('--db must be sqlite or postgres')
  const synchronous = values.synchronous.toUpperCase()
  if (synchronous !== 'FULL' && synchronous !== 'NORMAL') throw new Error('--synchronous must be FULL or NORMAL')
  const workers = number('workers', values.workers, 1)
  // Refused here, before a build of several seconds.
  if (workers > 1 && db !== 'postgres') throw new Error('--workers above 1 needs --db postgres (several processes cannot share SQLite)')
  if (values['perf-call-graph'] && values.perf === undefined)
    throw new Error('--perf-call-graph goes with --perf (the scenarios to sample)')
  if (values.compare !== undefined && values.scale) throw new Error('--compare goes with the main scenarios, not --scale')
  const cpu = (name: string, raw: string) => (raw === 'none' ? null : number(name, raw, 0))
  return {
    db,
    synchronous,
    duration: number('duration', values.duration, 1),
    warmup: number('warmup', values.warmup, 0),
    rounds: number('rounds', values.rounds, 1),
    connections: number('connections', values.connections, 1),
    scenarios: ['baseline', ...scenarioList(values.scenarios, SCENARIO_NAMES).filter((n) => n !== 'baseline')],
    logLevel: values['log-level'],
    // The baseline has none of the API to show.
    perf: values.perf === undefined ? [] : scenarioList(values.perf, API_SCENARIOS),
    perfSeconds: number('perf-seconds', values['perf-seconds'], 1),
    perfCallGraph: values['perf-call-graph'],
    scale: values.scale,
    quietWait: number('quiet-wait', values['quiet-wait'], 0),
    expiry: values.expiry,
    postgresUrl: values['postgres-url'],
    keep: values.keep,
    build: !values['no-build'],
    serverCpu: cpu('server-cpu', values['server-cpu']),
    loadCpu: cpu('load-cpu', values['load-cpu']),
    workers,
    redisUrl: values['redis-url'] ?? null,
    compare: values.compare ?? null,
    nodeFlags: nodeFlags('node-flags', values['node-flags']),
    compareNodeFlags: nodeFlags('compare-node-flags', values['compare-node-flags'] ?? values['node-flags'])
  }
}
