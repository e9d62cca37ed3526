import path from 'node:path'
import type { ServerOptions } from './environment.js'
import { type LoadResult, runLoad } from './loadgen.js'
import { machineCpuSeconds } from './processes.js'
import type { Scenario, ScenarioName } from './scenarios.js'

export interface Options {
  db: 'sqlite' | 'postgres'
  synchronous: 'FULL' | 'NORMAL'
  duration: number
  warmup: number
  rounds: number
  connections: number
  threads: number
  scenarios: ScenarioName[]
  logLevel: string
  profile: ScenarioName[]
  profileSeconds: number
  /** `--perf`: scenarios sampled with Linux perf after the rounds. */
  perf: ScenarioName[]
  /** `--perf-call-graph`: perf records call stacks, and the report names the project's functions by inclusive CPU. */
  perfCallGraph: boolean
  scale: boolean
  quietWait: number
  expiry: boolean
  postgresUrl: string
  keep: boolean
  build: boolean
  serverCpu: number | null
  loadCpu: number | null
  /** API processes (`WORKERS`, node:cluster; issue 10); 1 = a single process, as `npm start`. */
  workers: number
  /** REDIS_URL for the API (rate-limit counters in Redis), or null. */
  redisUrl: string | null
  /** `--compare REV`: a git revision whose API runs beside this one, interleaved, or null. */
  compare: string | null
  /** Extra Node/V8 flags for the API (`--node-flags`), and for the `--compare` twin. */
  nodeFlags: string[]
  compareNodeFlags: string[]
}

/** What every API server of a run shares: its database, data directory, core, log level and durability, and a log of its own. */
export function apiServerOptions(
  options: Options,
  runDir: string,
  databaseUrl: string,
  port: number,
  logName: string
): Omit<ServerOptions, 'entry'> {
  return {
    databaseUrl,
    port,
    cpu: options.serverCpu,
    logLevel: options.logLevel,
    synchronous: options.synchronous,
    dataDir: path.join(runDir, 'data'),
    logFile: path.join(runDir, logName)
  }
}

export const log = (line: string) => process.stdout.write(`${line}\n`)

/** Waits (at most `seconds`) until other work on the machine uses less than a quarter of a core. */
export async function waitForQuiet(seconds: number): Promise<void> {
  if (seconds <= 0) return
  const deadline = Date.now() + seconds * 1000
  for (;;) {
    const before = machineCpuSeconds().busy
    const self = process.cpuUsage()
    await new Promise((resolve) => setTimeout(resolve, 1000))
    const used = process.cpuUsage(self)
    const others = machineCpuSeconds().busy - before - (used.user + used.system) / 1e6
    if (others < 0.25) return
    if (Date.now() > deadline) {
      log(`  (machine still busy with other work: ${others.toFixed(2)} cores; going on)`)
      return
    }
  }
}

/** Where one scenario is sent and how far through its request list it is. */
export interface Target {
  scenario: Scenario
  file: string
  url: string
  /** Index of the next request (write scenarios continue across runs). */
  cursor: number
}

/** One load run of a scenario; advances its cursor. */
export async function drive(
  target: Target,
  options: Options,
  seconds: number,
  connections = options.connections,
  onStart?: (pid: number) => void
): Promise<LoadResult> {
  const dynamic = target.scenario.requests.length > 1 || target.scenario.countStatuses
  const result = await runLoad({
    url: target.url,
    requestFile: target.file,
    start: target.cursor,
    connections,
    threads: options.threads,
    seconds,
    dynamic,
    countStatuses: target.scenario.countStatuses,
    expectedStatuses: target.scenario.expectedStatuses ?? [],
    cpu: options.loadCpu,
    onStart
  })
  if (dynamic) target.cursor += result.sent
  return result
}
