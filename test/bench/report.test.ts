import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { twinsFirst, withTwins } from '../../bench/compare.js'
import type { LoadResult } from '../../bench/loadgen.js'
import {
  comparisonLines,
  evaluateTargets,
  type MainReport,
  markdown,
  nodeFlagsNote,
  type RunRecord,
  referenceComparison,
  summarize
} from '../../bench/report.js'
import type { Scenario, ScenarioKind } from '../../bench/scenarios.js'

/** A run of `rps` requests per second in `round`, p99 as given. */
function run(round: number, rps: number, p99 = 5): RunRecord {
  const result = { rps, p50: 1, p99, errors: 0, expected: 0 } as LoadResult
  return { round, result, rssPeak: 100 * 2 ** 20, foreignCores: 0, stealCores: 0 }
}

function scenarios(entries: Array<[string, ScenarioKind, number[]]>) {
  return summarize(
    new Map(entries.map(([name, kind, rates]) => [name, { title: name, kind, runs: rates.map((rps, i) => run(i + 1, rps)) }]))
  )
}

describe('bench report (issue 7)', () => {
  it('should compare get-transaction with the hand-prepared reference: share of its rate and microseconds more per request', () => {
    const report = {
      scenarios: scenarios([
        ['baseline', 'baseline', [50_000]],
        ['get-transaction', 'read', [8_000]],
        ['reference-transaction', 'reference', [10_000]]
      ])
    }
    assert.equal(
      referenceComparison(report),
      'get-transaction runs at 0.80 of the hand-prepared reference (8,000 against 10,000 req/s; the reference at 0.200 of the baseline): 25 µs more per request'
    )
    assert.equal(referenceComparison({ scenarios: report.scenarios.filter((s) => s.kind !== 'reference') }), null)
  })

  it('should hold neither the reference nor a compared build to a target', () => {
    const report = {
      db: 'sqlite',
      synchronous: 'FULL',
      rss: { idle: 0, peak: 120 * 2 ** 20 },
      scenarios: scenarios([
        ['baseline', 'baseline', [50_000]],
        ['get-transaction', 'read', [15_000]],
        ['reference-transaction', 'reference', [1_000]],
        ['get-transaction@HEAD~1', 'compare', [1_000]]
      ])
    } as unknown as Omit<MainReport, 'targets'>
    assert.deepEqual(
      evaluateTargets(report).map((t) => `${t.what} ${t.met}`),
      ['get-transaction: ratio to baseline true', 'get-transaction: p99 latency true', 'API process RSS under load (peak) true']
    )
  })

  it('should give a compared build the median of the per-round ratios and the rounds this build was ahead', () => {
    const report = {
      compared: { revision: 'HEAD~1', commit: '0123456789abcdef0123' },
      scenarios: scenarios([
        ['baseline', 'baseline', [50_000, 50_000, 50_000]],
        ['get-customer', 'read', [10_500, 9_000, 12_000]],
        ['get-customer@HEAD~1', 'compare', [10_000, 10_000, 10_000]]
      ])
    }
    assert.deepEqual(comparisonLines(report), [
      'get-customer: this build / HEAD~1 (0123456789ab) = 1.050 (median of 3 rounds: 1.050, 0.900, 1.200; ahead in 2 of 3); p99 5.00 against 5.00 ms'
    ])
    assert.deepEqual(comparisonLines({ ...report, compared: null }), [])
  })

  it('should give each API scenario a twin sent to the compared build, and none without a revision', () => {
    const scenario = (name: string, target: Scenario['target']): Scenario => ({
      name,
      title: name,
      kind: target === 'api' ? 'read' : 'baseline',
      target,
      requests: [],
      countStatuses: false
    })
    const list = [scenario('baseline', 'baseline'), scenario('get-customer', 'api')]
    assert.deepEqual(
      withTwins(list, 'HEAD~1').map((s) => [s.name, s.kind, s.target, s.title]),
      [
        ['baseline', 'baseline', 'baseline', 'baseline'],
        ['get-customer', 'read', 'api', 'get-customer'],
        ['get-customer@HEAD~1', 'compare', 'compare', 'get-customer, built from HEAD~1']
      ]
    )
    assert.deepEqual(withTwins(list, null), list)
  })

  it('should put each compared twin before its original, leaving the others in place', () => {
    const target = (name: string, kind: ScenarioKind) => ({ name, scenario: { kind } })
    const ordered = twinsFirst([
      target('baseline', 'baseline'),
      target('get-transaction', 'read'),
      target('get-transaction@r', 'compare'),
      target('reference-transaction', 'reference'),
      target('move-transaction', 'write'),
      target('move-transaction@r', 'compare')
    ])
    assert.deepEqual(
      ordered.map((t) => t.name),
      ['baseline', 'get-transaction@r', 'get-transaction', 'reference-transaction', 'move-transaction@r', 'move-transaction']
    )
  })

  it('should write one markdown row a scenario: median rate and latencies, errors, 409s of writes, ratio, RSS, rounds', () => {
    const report = {
      db: 'sqlite',
      synchronous: 'FULL',
      connections: 32,
      seconds: 10,
      warmupSeconds: 3,
      rounds: 2,
      logLevel: 'warn',
      startedAt: 'T',
      seed: { seconds: 1, rows: {} },
      rss: { idle: 0, peak: 100 * 2 ** 20 },
      counters: null,
      expiry: null,
      targets: [],
      scenarios: scenarios([
        ['baseline', 'baseline', [50_000, 40_000]],
        ['add-to-receipt', 'write', [2_000, 3_000]]
      ])
    } as unknown as MainReport
    const rows = markdown(report)
      .split('\n')
      .filter((line) => line.startsWith('| baseline') || line.startsWith('| add-to-receipt'))
    assert.deepEqual(rows, [
      '| baseline | 40,000 | 1.00 | 5.00 | 0 |  | 1 | 100 | 50,000 / 40,000 | 0.00 / 0.00 |',
      '| add-to-receipt | 2,000 | 1.00 | 5.00 | 0 | 0 | 0.050 | 100 | 2,000 / 3,000 | 0.00 / 0.00 |'
    ])
  })

  it("should name the node flags added to npm start's, and the compared twin's when they differ", () => {
    const compared = { revision: 'HEAD', commit: 'c'.repeat(40) }
    assert.equal(nodeFlagsNote({}), '')
    assert.equal(nodeFlagsNote({ nodeFlags: { api: [], compare: null } }), '')
    assert.equal(
      nodeFlagsNote({ nodeFlags: { api: ['--max-semi-space-size=8'], compare: null } }),
      '; node flags added: `--max-semi-space-size=8`'
    )
    assert.equal(
      nodeFlagsNote({ nodeFlags: { api: ['--a', '--b=1'], compare: ['--a', '--b=1'] }, compared }),
      '; node flags added: `--a --b=1`'
    )
    assert.equal(
      nodeFlagsNote({ nodeFlags: { api: ['--max-semi-space-size=8'], compare: [] }, compared }),
      "; node flags added: `--max-semi-space-size=8`, the HEAD twin's none"
    )
    assert.equal(nodeFlagsNote({ nodeFlags: { api: [], compare: ['--x'] }, compared }), "; node flags added: none, the HEAD twin's `--x`")
  })
})
