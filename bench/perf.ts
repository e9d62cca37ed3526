import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Where a server's CPU goes, kernel included, from Linux `perf` sampling the whole process. V8's
 * own profiler (`--profile`) sees only JavaScript and attributes native work to whichever function
 * was on the stack when it sampled: it gave `pragma data_version` 1.8 µs a request, which takes
 * 70 ns in a loop, and none of the time the kernel spends sending an answer. `perf` counts every
 * thread of the process on the CPU, in user space and in the kernel, so its samples divided by the
 * requests answered meanwhile are the CPU a request costs, by where it was spent.
 */

/** Samples per second: below 1 kHz so the sampling itself costs little. */
export const PERF_FREQUENCY = 999

/**
 * Node flags of a sampled server: V8 writes `/tmp/perf-PID.map`, which names its generated code for
 * `perf report` (one JavaScript function a symbol, instead of one lump of `[JIT]`). Only functions:
 * V8's own stubs stay unnamed, and the map stays small. The map is read when the recording is
 * summarised, and removed after (`removePerfMap`).
 */
export const PERF_NODE_FLAGS = ['--perf-basic-prof-only-functions'] as const

export interface PerfLine {
  /** The shared object (`node`, `[kernel.kallsyms]`, `better_sqlite3.node`, V8's JIT code…). */
  object: string
  /** The symbol, for the top-symbols list; empty for the by-object list. */
  symbol: string
  share: number
}

export interface PerfSummary {
  file: string
  samples: number
  requests: number
  /** CPU microseconds per request answered, all threads of the server process. */
  cpuMicrosPerRequest: number
  byObject: PerfLine[]
  top: PerfLine[]
  /**
   * `--perf-call-graph`: the project's own functions (and the reference's) by inclusive share, what
   * they and everything they called took. A function that goes on with the request through a
   * callback (a hook's `done`) includes the rest of the request: read those as upper bounds.
   */
  inclusive?: PerfLine[]
}

/** True when Linux `perf` is installed and runs. */
export function perfAvailable(): boolean {
  const result = spawnSync('perf', ['--version'], { encoding: 'utf8' })
  return result.status === 0
}

/** What perf calls V8's generated code (`[JIT] tid 1234`), under one name for every process. */
function objectName(raw: string): string {
  const name = raw.trim()
  return name.startsWith('[JIT]') ? '[JIT] (V8 generated code)' : name
}

/**
 * A JavaScript function as V8's perf map names it (`JS:*name file:///…/dist/x.js:15:34`, the mark
 * saying which tier compiled it), shortened to `name (dist/x.js:15)`: the project's files from
 * `dist/`, packages from their name, Node's own as `node:…`, code V8 generated from a string
 * (fast-json-stringify's serialisers, find-my-way's) as `generated`. Any other symbol is kept.
 */
export function readableSymbol(symbol: string): string {
  const match = /^JS:[*~^+-]?(\S*) (.*?):(\d+):\d+$/.exec(symbol)
  if (match === null) return symbol
  const name = match[1] === '' ? '(anonymous)' : match[1]!
  const where = match[2]!
  const dist = where.lastIndexOf('/dist/')
  const modules = where.lastIndexOf('/node_modules/')
  const bench = where.lastIndexOf('/bench/')
  const file =
    where === ''
      ? 'generated'
      : modules >= 0
        ? where.slice(modules + '/node_modules/'.length)
        : dist >= 0
          ? where.slice(dist + 1)
          : bench >= 0
            ? where.slice(bench + 1)
            : where
  return `${name} (${file}:${match[3]})`
}

/** Whether a symbol is one of the project's functions (its build, `dist/`, not a package's) or the reference's. */
function isProjectFunction(symbol: string): boolean {
  return (
    symbol.startsWith('JS:') && !symbol.includes('/node_modules/') && (symbol.includes('/dist/') || symbol.includes('/bench/reference.'))
  )
}

/** The share column of a report line (percent as printed), as a fraction; NaN when it is not one. */
const shareOf = (fields: readonly string[]) => Number.parseFloat(fields[0]!.trim().replace('%', '')) / 100

/** The symbol column (from the `index`th field on: a symbol may hold ';'), without its user or kernel mark. */
const symbolOf = (fields: readonly string[], index: number) =>
  fields
    .slice(index)
    .join(';')
    .trim()
    .replace(/^\[[.k]\]\s*/, '')

/**
 * Lines of `perf report --stdio -q -n -t ';' --sort dso[,sym]`: share, sample count, object and,
 * with `sym`, the symbol (`[.] name` in user space, `[k] name` in the kernel).
 */
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

/**
 * The project's functions from `perf report --children --sort sym -g none --stdio -q -n -t ';'`
 * (inclusive share, self share, samples, symbol), by inclusive share, at most `count`.
 */
export function parseInclusive(text: string, count = 15): PerfLine[] {
  // A function V8 compiled more than once (another tier, or again after a deoptimisation) is one row.
  const byFunction = new Map<string, number>()
  for (const raw of text.split('\n')) {
    const fields = raw.split(';')
    if (fields.length < 4) continue
    const symbol = symbolOf(fields, 3)
    if (!isProjectFunction(symbol)) continue
    const share = shareOf(fields)
    if (!Number.isFinite(share)) continue
    const name = readableSymbol(symbol)
    byFunction.set(name, (byFunction.get(name) ?? 0) + share)
  }
  return [...byFunction]
    .map(([symbol, share]): PerfLine => ({ object: '[JIT] (V8 generated code)', symbol, share }))
    .sort((a, b) => b.share - a.share)
    .slice(0, count)
}

function report(file: string, sort: string, extra: readonly string[] = []): string {
  const result = spawnSync('perf', ['report', '-i', file, '--stdio', '-q', '-n', '-t', ';', '--sort', sort, ...extra], {
    encoding: 'utf8',
    maxBuffer: 64 * 2 ** 20
  })
  if (result.status !== 0) throw new Error(`perf report failed: ${(result.stderr ?? '').trim().slice(0, 500)}`)
  return result.stdout
}

/**
 * The summary of a recording during which the server answered `requests` requests; with
 * `callGraph` (recorded with it), the project's functions by inclusive share too.
 */
export function summarizePerf(file: string, requests: number, callGraph = false): PerfSummary {
  // With call graphs recorded, the flat reports must still count each sample once, by its own symbol.
  const flat = callGraph ? ['--no-children', '-g', 'none'] : []
  const byObject = parseReport(report(file, 'dso', flat))
  const bySymbol = parseReport(report(file, 'dso,sym', flat))
  const cpuMicros = (byObject.samples * 1e6) / PERF_FREQUENCY
  return {
    file,
    samples: byObject.samples,
    requests,
    cpuMicrosPerRequest: requests > 0 ? cpuMicros / requests : 0,
    byObject: byObject.lines,
    top: bySymbol.lines.slice(0, 20),
    ...(callGraph ? { inclusive: parseInclusive(report(file, 'sym', ['--children', '-g', 'none'])) } : {})
  }
}

/** Removes the perf map V8 wrote for a sampled process (`PERF_NODE_FLAGS`), once it has been read. */
export function removePerfMap(pid: number): void {
  fs.rmSync(`/tmp/perf-${pid}.map`, { force: true })
}

/**
 * `perf record` of one process until `stop()`, which ends it as Ctrl-C does (it writes its file
 * then); `callGraph`: with each sample's call stack (`-g`, by frame pointers, which V8's code keeps).
 */
export function recordPerf(pid: number, file: string, callGraph = false): { stop: () => Promise<void> } {
  const args = ['record', '-q', ...(callGraph ? ['-g'] : []), '-F', String(PERF_FREQUENCY), '-p', String(pid), '-o', file]
  const child: ChildProcess = spawn('perf', args, { stdio: ['ignore', 'ignore', 'pipe'] })
  let stderr = ''
  child.stderr?.on('data', (chunk: Buffer) => (stderr += chunk.toString()))
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal }))
  )
  return {
    stop: async () => {
      child.kill('SIGINT')
      // perf writes its file on SIGINT, then ends by the same signal (as a shell expects of Ctrl-C).
      const { code, signal } = await exited
      if (code !== 0 && signal !== 'SIGINT') throw new Error(`perf record failed (exit ${code ?? signal}): ${stderr.trim().slice(0, 500)}`)
    }
  }
}

/**
 * get-transaction's CPU per request against the reference's, both sampled by perf in this run: the
 * CPU the API's platform (credentials, hooks, headers, metrics, Fastify's schemas) adds to the same
 * read. Steadier than the two rates' ratio on a VM where a server's rate moves with how often its
 * answers find the load generator asleep (BENCHMARKS.md).
 */
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

const us = (summary: PerfSummary, share: number) => (share * summary.cpuMicrosPerRequest).toFixed(1)
const pct = (share: number) => `${(share * 100).toFixed(1)}%`

export function perfMarkdown(title: string, summary: PerfSummary): string {
  const out = [
    `#### ${title}`,
    '',
    `\`perf record -F ${PERF_FREQUENCY}\` of the server process (every thread, user space and kernel), \`${path.basename(summary.file)}\`: ` +
      `${summary.samples} samples over ${summary.requests} requests, **${summary.cpuMicrosPerRequest.toFixed(0)} µs of CPU per request**.`,
    '',
    '| where (shared object) | share | µs per request |',
    '|---|---:|---:|'
  ]
  for (const line of summary.byObject.filter((l) => l.share >= 0.005))
    out.push(`| ${line.object} | ${pct(line.share)} | ${us(summary, line.share)} |`)
  out.push('', '| top symbols | in | share | µs per request |', '|---|---|---:|---:|')
  for (const line of summary.top)
    out.push(`| \`${line.symbol.replaceAll('|', '\\|')}\` | ${line.object} | ${pct(line.share)} | ${us(summary, line.share)} |`)
  if (summary.inclusive !== undefined && summary.inclusive.length > 0) {
    out.push(
      '',
      "The project's functions with what they called (`--perf-call-graph`; a hook that goes on with the request through `done` includes the rest of it):",
      '',
      '| function | inclusive share | µs per request |',
      '|---|---:|---:|'
    )
    for (const line of summary.inclusive)
      out.push(`| \`${line.symbol.replaceAll('|', '\\|')}\` | ${pct(line.share)} | ${us(summary, line.share)} |`)
  }
  out.push('')
  return out.join('\n')
}

// `tsx bench/perf.ts FILE REQUESTS [--call-graph]`: the summary of a recording taken by hand.
const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (isMain) {
  const [file, requests, graph] = process.argv.slice(2)
  if (file === undefined || requests === undefined || (graph !== undefined && graph !== '--call-graph')) {
    throw new Error('usage: tsx bench/perf.ts FILE.perf.data REQUESTS [--call-graph]')
  }
  console.log(perfMarkdown(path.basename(file), summarizePerf(file, Number(requests), graph !== undefined)))
}
