import path from 'node:path'
import { type BenchDatabase, type ServerOptions, withOpenDatabase } from './environment.js'
import { type LoadResult, runLoad } from './loadgen.js'
import type { Options } from './options.js'
import { machineCpuSeconds, RssSampler } from './processes.js'
import type { ExpirySlice } from './report.js'
import type { Scenario } from './scenarios.js'

export const log = (line: string) => process.stdout.write(`${line}\n`)

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
  /** Index of the next request: write scenarios continue across runs. */
  cursor: number
}

/** One load run of a scenario; advances its cursor. */
export async function drive(target: Target, options: Options, seconds: number, connections = options.connections): Promise<LoadResult> {
  const dynamic = target.scenario.requests.length > 1 || target.scenario.countStatuses
  const result = await runLoad({
    url: target.url,
    requestFile: target.file,
    start: target.cursor,
    connections,
    seconds,
    dynamic,
    countStatuses: target.scenario.countStatuses,
    expectedStatuses: target.scenario.expectedStatuses ?? [],
    cpu: options.loadCpu
  })
  if (dynamic) target.cursor += result.sent
  return result
}

/** Sends a scenario's first request once; throws on an answer that is not 2xx. */
export async function prime(target: Target): Promise<void> {
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

/** Fails early on a scenario whose first request is not answered 2xx. */
export async function preflight(targets: Target[]): Promise<void> {
  // A move is not repeatable; its first run shows its statuses instead.
  for (const target of targets) if (!target.scenario.name.startsWith('move-transaction')) await prime(target)
  for (const target of targets) verifiedAt.set(target.url, Date.now())
}

/** Puts back the data a scenario consumes (moves) before each run. */
export async function rewind(database: BenchDatabase, target: Target): Promise<void> {
  const rewind = target.scenario.rewind
  if (rewind === undefined) return
  await withOpenDatabase(database, (db) => rewind(db))
  target.cursor = 0
}

// D-13: the server keeps a verified password 60 s and re-verifies in the background in its last 10 s.
const CREDENTIAL_TTL_MS = 60_000
const CREDENTIAL_REFRESH_MS = 10_000
// Per server URL: with --compare each build keeps its own cache.
const verifiedAt = new Map<string, number>()
const lastVerified = (target: Target) => verifiedAt.get(target.url) ?? Number.NEGATIVE_INFINITY

/**
 * Has the server verify the customer's password at a moment that keeps the cache entry alive for
 * the next `seconds`: a re-verification (one scrypt) must not land in a measured run. `--expiry`
 * measures the expiry itself.
 */
export async function primeCredentials(target: Target, seconds: number): Promise<void> {
  const now = Date.now()
  const expires = lastVerified(target) + CREDENTIAL_TTL_MS
  if (now < expires + 1000) {
    if (now + seconds * 1000 + 2000 < expires - CREDENTIAL_REFRESH_MS) return
    await new Promise((resolve) => setTimeout(resolve, expires + 1000 - now))
  }
  await prime(target)
  verifiedAt.set(target.url, Date.now())
}

/** D-13 under load: get-transaction for 75 s in 5 s slices, the 60 s cache entry expiring in the middle. */
export async function expiryCheck(options: Options, target: Target, pid: number): Promise<ExpirySlice[]> {
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
