import { spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { apiServerOptions, drive, log, prime, rewind, type Target } from './driver.js'
import { type BenchDatabase, freePort, ROOT, startApiServer, startReference } from './environment.js'
import type { Options } from './options.js'

/**
 * `--perf`: where a server's CPU goes, from Linux `perf` sampling every thread of the process, in
 * user space and in the kernel. V8's own profiler sees no kernel time and charges native calls to
 * whatever JavaScript was on the stack; samples over requests answered are the CPU a request costs.
 */

/** Samples per second: below 1 kHz so that sampling costs little. */
export const PERF_FREQUENCY = 999

// V8 writes /tmp/perf-PID.map, naming its generated code for `perf report`; functions only keep it small.
const PERF_NODE_FLAGS = ['--perf-basic-prof-only-functions']

export interface PerfLine {
  /** The shared object (`node`, `[kernel.kallsyms]`, `better_sqlite3.node`, V8's JIT code…). */
  object: string
  /** Empty in the by-object list. */
  symbol: string
  share: number
}

export interface PerfSummary {
  file: string
  samples: number
  requests: number
  cpuMicrosPerRequest: number
  byObject: PerfLine[]
  top: PerfLine[]
  /**
   * With call graphs: the project's functions by inclusive share. A hook that goes on with the
   * request through a callback includes the rest of it: read those as upper bounds.
   */
  inclusive?: PerfLine[]
}

export function perfAvailable(): boolean {
  return spawnSync('perf', ['--version'], { encoding: 'utf8' }).status === 0
}

const JIT = '[JIT] (V8 generated code)'

/** One name for V8's generated code (`[JIT] tid 1234`) in every process. */
function objectName(raw: string): string {
  const name = raw.trim()
  return name.startsWith('[JIT]') ? JIT : name
}

/**
 * A JavaScript function as V8's perf map names it (`JS:*name file:///…/dist/x.js:15:34`) as
 * `name (dist/x.js:15)`: the build from `dist/`, packages by name, code V8 generated from a string
 * as `generated`. Any other symbol is kept.
 */
export function readableSymbol(symbol: string): string {
  const match = /^JS:[*~^+-]?(\S*) (.*?):(\d+):\d+$/.exec(symbol)
  if (match === null) return symbol
  const name = match[1] === '' ? '(anonymous)' : match[1]!
  const where = match[2]!
  // Packages by name, the build and the bench from their folder.
  const cut = (marker: string, keepFolder: boolean) => {
    const at = where.lastIndexOf(marker)
    return at < 0 ? null : where.slice(keepFolder ? at + 1 : at + marker.length)
  }
  const file = where === '' ? 'generated' : (cut('/node_modules/', false) ?? cut('/dist/', true) ?? cut('/bench/', true) ?? where)
  return `${name} (${file}:${match[3]})`
}

/** The project's build (not a package's) or the reference server. */
function isProjectFunction(symbol: string): boolean {
  return (
    symbol.startsWith('JS:') && !symbol.includes('/node_modules/') && (symbol.includes('/dist/') || symbol.includes('/bench/reference.'))
  )
}

/** The share column as printed (percent), as a fraction; NaN when it is not one. */
const shareOf = (fields: readonly string[]) => Number.parseFloat(fields[0]!.trim().replace('%', '')) / 100

/** The symbol from field `index` on (a symbol may hold ';'), without its user or kernel mark. */
const symbolOf = (fields: readonly string[], index: number) =>
  fields
    .slice(index)
    .join(';')
    .trim()
    .replace(/^\[[.k]\]\s*/, '')

/** Lines of `perf report --stdio -q -n -t ';' --sort dso[,sym]`: share, samples, object and maybe symbol. */
export function parseReport(text: string): { samples: number; lines: PerfLine[] } {
  const lines: PerfLine[] = []
  let samples = 0
  for (const raw of text.split('\n')) {
    const fields = raw.split(';')
    if (fields.length < 3) continue
    const share = shareOf(fields)
    const count = Number.parseInt(fields[1]!.trim(), 10)
    if (!Number.isFinite(share) || !Number.isFinite(count)) continue
    samples += count
    const symbol = fields.length > 3 ? readableSymbol(symbolOf(fields, 3)) : ''
    lines.push({ object: objectName(fields[2]!), symbol, share })
  }
  return { samples, lines }
}

/** The project's functions from `perf report --children --sort sym -g none …`, by inclusive share, at most `count`. */
export function parseInclusive(text: string, count = 15): PerfLine[] {
  // A function V8 compiled more than once (another tier, a deoptimisation) is one row.
  const byFunction = new Map<string, number>()
  for (const raw of text.split('\n')) {
    const fields = raw.split(';')
    if (fields.length < 4) continue
    const symbol = symbolOf(fields, 3)
    const share = shareOf(fields)
    if (!isProjectFunction(symbol) || !Number.isFinite(share)) continue
    const name = readableSymbol(symbol)
    byFunction.set(name, (byFunction.get(name) ?? 0) + share)
  }
  return [...byFunction]
    .map(([symbol, share]): PerfLine => ({ object: JIT, symbol, share }))
    .sort((a, b) => b.share - a.share)
    .slice(0, count)
}

function report(file: string, sort: string, extra: readonly string[]): string {
  const args = ['report', '-i', file, '--stdio', '-q', '-n', '-t', ';', '--sort', sort, ...extra]
  const result = spawnSync('perf', args, { encoding: 'utf8', maxBuffer: 64 * 2 ** 20 })
  if (result.status !== 0) throw new Error(`perf report failed: ${(result.stderr ?? '').trim().slice(0, 500)}`)
  return result.stdout
}

/** The summary of a recording during which the server answered `requests` requests. */
function summarizePerf(file: string, requests: number, callGraph: boolean): PerfSummary {
  // With call graphs recorded, the flat reports must still count each sample once, by its own symbol.
  const flat = callGraph ? ['--no-children', '-g', 'none'] : []
  const byObject = parseReport(report(file, 'dso', flat))
  const bySymbol = parseReport(report(file, 'dso,sym', flat))
  return {
    file,
    samples: byObject.samples,
    requests,
    cpuMicrosPerRequest: requests > 0 ? (byObject.samples * 1e6) / PERF_FREQUENCY / requests : 0,
    byObject: byObject.lines,
    top: bySymbol.lines.slice(0, 20),
    ...(callGraph ? { inclusive: parseInclusive(report(file, 'sym', ['--children', '-g', 'none'])) } : {})
  }
}

/** `perf record` of one process until `stop()`, which ends it as Ctrl-C does; `-g` walks V8's frame pointers. */
function recordPerf(pid: number, file: string, callGraph: boolean): { stop: () => Promise<void> } {
  const args = ['record', '-q', ...(callGraph ? ['-g'] : []), '-F', String(PERF_FREQUENCY), '-p', String(pid), '-o', file]
  const child = spawn('perf', args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal }))
  )
  return {
    stop: async () => {
      child.kill('SIGINT')
      // perf writes its file on SIGINT, then ends by the same signal.
      const { code, signal } = await exited
      if (code !== 0 && signal !== 'SIGINT') throw new Error(`perf record failed (exit ${code ?? signal}): ${stderr.trim().slice(0, 500)}`)
    }
  }
}

/**
 * A fresh server (the reference's own for its scenario) driven with one scenario after its data is
 * put back and a warm-up, then sampled by perf for `--perf-seconds`.
 */
export async function perfScenario(options: Options, entry: string, database: BenchDatabase, runDir: string, target: Target) {
  const dir = path.join(runDir, 'perf')
  fs.mkdirSync(dir, { recursive: true })
  const file = path.join(dir, `${target.scenario.name}.perf.data`)
  const port = await freePort()
  const server =
    target.scenario.target === 'reference'
      ? await startReference(port, database.url, options.serverCpu, path.join(runDir, 'reference-perf.log'), PERF_NODE_FLAGS)
      : await startApiServer({
          entry,
          ...apiServerOptions(options, runDir, database.url, port, 'server-perf.log'),
          nodeFlags: [...options.nodeFlags, ...PERF_NODE_FLAGS]
        })
  try {
    let requests: number
    try {
      await rewind(database, target)
      const fresh: Target = { ...target, url: `http://127.0.0.1:${port}` }
      if (target.scenario.prime === true) await prime(fresh)
      if (options.warmup > 0) await drive(fresh, options, options.warmup)
      const recording = recordPerf(server.pid, file, options.perfCallGraph)
      // Let perf attach to every thread before the load starts.
      await new Promise((resolve) => setTimeout(resolve, 300))
      const result = await drive(fresh, options, options.perfSeconds)
      await recording.stop()
      target.cursor = fresh.cursor
      requests = result.requests
      log(`perf ${target.scenario.name}: ${Math.round(result.rps)} req/s while sampled; ${path.relative(ROOT, file)}`)
    } finally {
      await server.stop()
    }
    return summarizePerf(file, requests, options.perfCallGraph)
  } finally {
    // `perf report` names JavaScript only while the map is there: --keep keeps it for reports by hand.
    if (!options.keep) fs.rmSync(`/tmp/perf-${server.pid}.map`, { force: true })
  }
}

/** get-transaction's CPU per request against the reference's: what the API's platform adds to the same read. */
export function perfComparison(perf: readonly { scenario: string; summary: PerfSummary }[]): string | null {
  const api = perf.find((p) => p.scenario === 'get-transaction')?.summary
  const reference = perf.find((p) => p.scenario === 'reference-transaction')?.summary
  if (api === undefined || reference === undefined || reference.cpuMicrosPerRequest <= 0) return null
  const more = api.cpuMicrosPerRequest - reference.cpuMicrosPerRequest
  return (
    `CPU per request (perf): get-transaction ${api.cpuMicrosPerRequest.toFixed(0)} µs, the hand-prepared reference ${reference.cpuMicrosPerRequest.toFixed(0)} µs: ` +
    `${more >= 0 ? `${more.toFixed(0)} µs more` : `${(-more).toFixed(0)} µs less`} (${(api.cpuMicrosPerRequest / reference.cpuMicrosPerRequest).toFixed(2)}×)`
  )
}

const pct = (share: number) => `${(share * 100).toFixed(1)}%`
const code = (symbol: string) => `\`${symbol.replaceAll('|', '\\|')}\``

export function perfMarkdown(title: string, summary: PerfSummary): string {
  const us = (share: number) => (share * summary.cpuMicrosPerRequest).toFixed(1)
  const out = [
    `#### ${title}`,
    '',
    `\`perf record -F ${PERF_FREQUENCY}\` of the server process (every thread, user space and kernel), \`${path.basename(summary.file)}\`: ` +
      `${summary.samples} samples over ${summary.requests} requests, **${summary.cpuMicrosPerRequest.toFixed(0)} µs of CPU per request**.`,
    '',
    '| where (shared object) | share | µs per request |',
    '|---|---:|---:|',
    ...summary.byObject.filter((l) => l.share >= 0.005).map((l) => `| ${l.object} | ${pct(l.share)} | ${us(l.share)} |`),
    '',
    '| top symbols | in | share | µs per request |',
    '|---|---|---:|---:|',
    ...summary.top.map((l) => `| ${code(l.symbol)} | ${l.object} | ${pct(l.share)} | ${us(l.share)} |`)
  ]
  if (summary.inclusive !== undefined && summary.inclusive.length > 0) {
    out.push(
      '',
      "The project's functions with what they called (`--perf-call-graph`; a hook that goes on with the request through `done` includes the rest of it):",
      '',
      '| function | inclusive share | µs per request |',
      '|---|---:|---:|',
      ...summary.inclusive.map((l) => `| ${code(l.symbol)} | ${pct(l.share)} | ${us(l.share)} |`)
    )
  }
  out.push('')
  return out.join('\n')
}
