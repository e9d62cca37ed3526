import type { LoadResult } from './loadgen.js'
import type { MachineInfo } from './machine.js'
import type { PerfSummary } from './perf.js'
import type { ScenarioKind } from './scenarios.js'

/** One measured run of one scenario. */
export interface RunRecord {
  round: number
  result: LoadResult
  /** Peak RSS of the server under load, bytes. */
  rssPeak: number
  /** Cores busy with other work on the machine during the run. */
  foreignCores: number
  /** Cores' worth of time the hypervisor gave to other guests (steal). */
  stealCores: number
}

/** A scenario over all its rounds. */
export interface ScenarioReport {
  name: string
  title: string
  kind: ScenarioKind
  runs: RunRecord[]
  /** The round with the median requests per second. */
  median: RunRecord
  /** Median requests per second over the baseline's median; null for the baseline itself. */
  ratio: number | null
}

export interface MainReport {
  kind: 'main'
  startedAt: string
  db: 'sqlite' | 'postgres'
  synchronous: 'FULL' | 'NORMAL' | null
  workers?: number
  redis?: boolean
  logLevel: string
  connections: number
  seconds: number
  warmupSeconds: number
  rounds: number
  machine: MachineInfo
  seed: { seconds: number; rows: Record<string, number> }
  scenarios: ScenarioReport[]
  /** RSS of the API process: idle after start, and the peak under load. */
  rss: { idle: number; peak: number }
  counters: { steps: number; mismatched: number; stepCountsOff: number } | null
  targets: TargetResult[]
  perf?: { scenario: string; summary: PerfSummary }[]
  expiry: ExpirySlice[] | null
  /** The revision whose build ran beside this one (its scenarios named `name@REV`). */
  compared?: { revision: string; commit: string } | null
  /** Node/V8 flags added to `npm start`'s, this build's and the twin's. */
  nodeFlags?: { api: string[]; compare: string[] | null }
}

export interface ExpirySlice {
  /** Seconds since the one request that verified the customer's password. */
  from: number
  rps: number
  p50: number
  p99: number
  max: number
  rssPeak: number
}

export interface TargetResult {
  what: string
  target: string
  measured: string
  met: boolean
  /** How far above or below the target, as a phrase. */
  margin: string
}

const MiB = 2 ** 20

export function median<T>(values: T[], by: (value: T) => number): T {
  const sorted = [...values].sort((a, b) => by(a) - by(b))
  return sorted[Math.floor((sorted.length - 1) / 2)]!
}

/** Builds the per-scenario summaries: median round and ratio to the baseline's median. */
export function summarize(runs: Map<string, { title: string; kind: ScenarioKind; runs: RunRecord[] }>): ScenarioReport[] {
  const baseline = runs.get('baseline')
  const baselineRps = baseline === undefined ? null : median(baseline.runs, (r) => r.result.rps).result.rps
  return [...runs.entries()].map(([name, entry]) => {
    const mid = median(entry.runs, (r) => r.result.rps)
    return {
      name,
      title: entry.title,
      kind: entry.kind,
      runs: entry.runs,
      median: mid,
      ratio: name === 'baseline' || baselineRps === null ? null : mid.result.rps / baselineRps
    }
  })
}

function ratioTarget(scenario: ScenarioReport, minimum: number): TargetResult {
  const ratio = scenario.ratio ?? 0
  const met = ratio >= minimum
  return {
    what: `${scenario.name}: ratio to baseline`,
    target: `≥ ${minimum.toFixed(3)}`,
    measured: ratio.toFixed(3),
    met,
    margin: met
      ? `met, ${((ratio / minimum - 1) * 100).toFixed(0)}% above`
      : `missed by ${((1 - ratio / minimum) * 100).toFixed(0)}% (needs ${(minimum / ratio).toFixed(2)}× the throughput)`
  }
}

function p99Target(scenario: ScenarioReport, maximumMs: number): TargetResult {
  const p99 = scenario.median.result.p99
  const met = p99 < maximumMs
  return {
    what: `${scenario.name}: p99 latency`,
    target: `< ${maximumMs} ms`,
    measured: `${p99.toFixed(2)} ms`,
    met,
    margin: met
      ? `met, ${(maximumMs / p99).toFixed(1)}× under`
      : `missed by ${(p99 - maximumMs).toFixed(1)} ms (${(p99 / maximumMs).toFixed(1)}× the limit)`
  }
}

/** The targets for this database and durability setting. */
export function evaluateTargets(report: Omit<MainReport, 'targets'>): TargetResult[] {
  const targets: TargetResult[] = []
  for (const scenario of report.scenarios) {
    if (scenario.kind === 'baseline' || scenario.kind === 'reference' || scenario.kind === 'compare') continue
    if (report.db === 'sqlite') {
      if (scenario.name === 'get-transaction') {
        targets.push(ratioTarget(scenario, 0.25), p99Target(scenario, 10))
      } else if (scenario.kind === 'read') {
        targets.push(ratioTarget(scenario, 0.2))
      } else {
        targets.push(ratioTarget(scenario, report.synchronous === 'NORMAL' ? 0.1 : 0.05))
      }
    } else {
      targets.push(ratioTarget(scenario, scenario.kind === 'read' ? 0.05 : 0.025))
    }
  }
  const peak = report.rss.peak / MiB
  targets.push({
    what: 'API process RSS under load (peak)',
    target: '< 150 MiB',
    measured: `${peak.toFixed(0)} MiB`,
    met: peak < 150,
    margin: peak < 150 ? `met, ${(150 - peak).toFixed(0)} MiB to spare` : `missed by ${(peak - 150).toFixed(0)} MiB`
  })
  return targets
}

const fmt = {
  rps: (n: number) => Math.round(n).toLocaleString('en-US'),
  ms: (n: number) => (n >= 100 ? n.toFixed(0) : n >= 10 ? n.toFixed(1) : n.toFixed(2)),
  mib: (bytes: number) => (bytes / MiB).toFixed(0)
}

/** A scenario's cells, in the order of both tables' columns. */
function cells(s: ScenarioReport): string[] {
  const sum = (of: (run: RunRecord) => number) => s.runs.reduce((total, run) => total + of(run), 0)
  const most = (of: (run: RunRecord) => number) => Math.max(...s.runs.map(of))
  return [
    s.name,
    fmt.rps(s.median.result.rps),
    fmt.ms(s.median.result.p50),
    fmt.ms(s.median.result.p99),
    String(sum((r) => r.result.errors)),
    s.kind === 'write' ? String(sum((r) => r.result.expected)) : '',
    s.ratio === null ? '1' : s.ratio.toFixed(3),
    fmt.mib(most((r) => r.rssPeak)),
    s.runs.map((r) => fmt.rps(r.result.rps)).join(' / '),
    `${most((r) => r.foreignCores).toFixed(2)} / ${most((r) => r.stealCores).toFixed(2)}`
  ]
}

/** get-transaction against the hand-prepared reference of the same read: what the API's platform costs a request. */
export function referenceComparison(report: Pick<MainReport, 'scenarios'>): string | null {
  const api = report.scenarios.find((s) => s.name === 'get-transaction')
  const reference = report.scenarios.find((s) => s.name === 'reference-transaction')
  if (api === undefined || reference === undefined) return null
  const [apiRps, referenceRps] = [api.median.result.rps, reference.median.result.rps]
  const extraMicros = 1e6 / apiRps - 1e6 / referenceRps
  return (
    `get-transaction runs at ${(apiRps / referenceRps).toFixed(2)} of the hand-prepared reference (${fmt.rps(apiRps)} against ${fmt.rps(referenceRps)} req/s; ` +
    `the reference at ${(reference.ratio ?? 0).toFixed(3)} of the baseline): ${extraMicros.toFixed(0)} µs more per request`
  )
}

/**
 * `--compare REV`: per scenario, the ratio of the two builds' rates in each round (the twins ran side
 * by side, so they saw the same machine), their median and the rounds this build was ahead.
 */
export function comparisonLines(report: Pick<MainReport, 'scenarios' | 'compared'>): string[] {
  const compared = report.compared
  if (compared == null) return []
  const lines: string[] = []
  for (const twin of report.scenarios.filter((s) => s.kind === 'compare')) {
    const original = report.scenarios.find((s) => s.name === twin.name.slice(0, twin.name.lastIndexOf('@')))
    if (original === undefined) continue
    const ratios = original.runs.flatMap((run) => {
      const paired = twin.runs.find((r) => r.round === run.round)
      return paired === undefined || paired.result.rps === 0 ? [] : [run.result.rps / paired.result.rps]
    })
    if (ratios.length === 0) continue
    const ahead = ratios.filter((r) => r > 1).length
    const p99 = `p99 ${fmt.ms(original.median.result.p99)} against ${fmt.ms(twin.median.result.p99)} ms`
    lines.push(
      `${original.name}: this build / ${compared.revision} (${compared.commit.slice(0, 12)}) = ${median(ratios, (r) => r).toFixed(3)} ` +
        `(median of ${ratios.length} rounds: ${ratios.map((r) => r.toFixed(3)).join(', ')}; ahead in ${ahead} of ${ratios.length}); ${p99}`
    )
  }
  return lines
}

/** The results table as text for the terminal. */
export function consoleTable(report: MainReport): string {
  const head = ['scenario', 'req/s', 'p50 ms', 'p99 ms', 'errors', '409', 'ratio', 'RSS MiB', 'rounds req/s', 'other load/steal']
  const rows = report.scenarios.map(cells)
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)))
  const line = (cells: string[]) => cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join('  ')
  const out = [line(head), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)]
  const comparison = referenceComparison(report)
  if (comparison !== null) out.push('', comparison)
  const builds = comparisonLines(report)
  if (builds.length > 0) out.push('', ...builds)
  out.push('', 'targets:')
  for (const t of report.targets) out.push(`  ${t.met ? 'MET   ' : 'MISSED'} ${t.what} ${t.target}: ${t.measured} (${t.margin})`)
  return out.join('\n')
}

/** The flags added to `npm start`'s, when there are any, and the twin's when they differ. */
export function nodeFlagsNote(report: Pick<MainReport, 'nodeFlags' | 'compared'>): string {
  const flags = report.nodeFlags
  if (flags === undefined) return ''
  const shown = (list: readonly string[]) => (list.length === 0 ? 'none' : `\`${list.join(' ')}\``)
  const twin =
    flags.compare !== null && report.compared != null && flags.compare.join(' ') !== flags.api.join(' ')
      ? `, the ${report.compared.revision} twin's ${shown(flags.compare)}`
      : ''
  return flags.api.length === 0 && twin === '' ? '' : `; node flags added: ${shown(flags.api)}${twin}`
}

/** The results as markdown, for BENCHMARKS.md. */
export function markdown(report: MainReport): string {
  const processes =
    ((report.workers ?? 1) > 1 ? `, ${report.workers} API processes` : '') + (report.redis === true ? ', REDIS_URL set' : '')
  const db = (report.db === 'sqlite' ? `SQLite, synchronous=${report.synchronous}` : 'PostgreSQL') + processes
  const out: string[] = []
  out.push(
    `### ${db}`,
    '',
    `${report.connections} connections, ${report.seconds} s per run after a ${report.warmupSeconds} s warm-up, ${report.rounds} rounds interleaved; median round shown; ` +
      `LOG_LEVEL=${report.logLevel}${nodeFlagsNote(report)}; taken ${report.startedAt}. Seeded in ${report.seed.seconds.toFixed(1)} s.`,
    '',
    '| scenario | req/s | p50 ms | p99 ms | errors | 409 | ratio to baseline | peak RSS MiB | req/s per round | other load / steal (cores) |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---|---:|'
  )
  for (const s of report.scenarios) out.push(`| ${cells(s).join(' | ')} |`)
  const comparison = referenceComparison(report)
  if (comparison !== null) out.push('', `${comparison}.`)
  const builds = comparisonLines(report)
  if (builds.length > 0) out.push('', ...builds.map((line) => `- ${line}`))
  out.push('', `API process RSS: ${fmt.mib(report.rss.idle)} MiB idle after start, ${fmt.mib(report.rss.peak)} MiB peak under load.`)
  if (report.counters !== null) {
    out.push(
      `Counters after the run: ${report.counters.steps} steps, ${report.counters.mismatched} with \`order_count\` different from the transactions at the step, ${report.counters.stepCountsOff} services with a wrong \`step_count\`.`
    )
  }
  if (report.expiry !== null) {
    out.push(
      '',
      `get-transaction across an expiry of the 60 s credential cache (D-13), ${report.connections} connections, in 5 s slices from the request that verified the password:`,
      '',
      '| seconds | req/s | p50 ms | p99 ms | max ms | peak RSS MiB |',
      '|---|---:|---:|---:|---:|---:|'
    )
    for (const slice of report.expiry) {
      out.push(
        `| ${slice.from}–${slice.from + 5} | ${fmt.rps(slice.rps)} | ${fmt.ms(slice.p50)} | ${fmt.ms(slice.p99)} | ${fmt.ms(slice.max)} | ${fmt.mib(slice.rssPeak)} |`
      )
    }
  }
  out.push('', '| target | wanted | measured | |', '|---|---|---|---|')
  for (const t of report.targets) out.push(`| ${t.what} | ${t.target} | ${t.measured} | ${t.met ? '✅' : '❌'} ${t.margin} |`)
  out.push('')
  return out.join('\n')
}
