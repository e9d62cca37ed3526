import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { parseOptions } from '../../bench/options.js'

describe('bench options', () => {
  it('should default to SQLite FULL, 3 rounds of 10 s, every scenario led by the baseline, no compared build', () => {
    const options = parseOptions([])!
    assert.equal(options.db, 'sqlite')
    assert.equal(options.synchronous, 'FULL')
    assert.deepEqual([options.rounds, options.duration, options.warmup, options.connections], [3, 10, 3, 32])
    assert.equal(options.scenarios[0], 'baseline')
    assert.equal(options.scenarios.length, 10)
    assert.deepEqual([options.compare, options.nodeFlags, options.compareNodeFlags], [null, [], []])
    assert.deepEqual([options.serverCpu, options.loadCpu, options.workers], [0, 1, 1])
  })

  it('should read the kept options as given', () => {
    const options = parseOptions([
      '--db',
      'postgres',
      '--rounds',
      '1',
      '--duration',
      '3',
      '--scenarios',
      'get-transaction,create-transaction',
      '--synchronous',
      'normal',
      '--load-cpu',
      'none'
    ])!
    assert.equal(options.db, 'postgres')
    assert.equal(options.synchronous, 'NORMAL')
    assert.deepEqual([options.rounds, options.duration, options.loadCpu], [1, 3, null])
    assert.deepEqual(options.scenarios, ['baseline', 'get-transaction', 'create-transaction'])
    assert.equal(parseOptions(['--scale'])!.scale, true)
    assert.equal(parseOptions(['--help']), undefined)
  })

  it("should give the compared twin this build's node flags unless it has its own", () => {
    const same = parseOptions(['--compare', 'HEAD', '--node-flags=--max-semi-space-size=8 --no-opt'])!
    assert.equal(same.compare, 'HEAD')
    assert.deepEqual(same.nodeFlags, ['--max-semi-space-size=8', '--no-opt'])
    assert.deepEqual(same.compareNodeFlags, same.nodeFlags)
    const own = parseOptions(['--compare', '262d1ba', '--node-flags=--a', '--compare-node-flags='])!
    assert.deepEqual([own.nodeFlags, own.compareNodeFlags], [['--a'], []])
  })

  it('should refuse what cannot run before anything is built', () => {
    assert.throws(() => parseOptions(['--db', 'mysql']), /--db must be sqlite or postgres/)
    assert.throws(() => parseOptions(['--synchronous', 'OFF']), /--synchronous must be FULL or NORMAL/)
    assert.throws(() => parseOptions(['--rounds', '0']), /--rounds must be a number ≥ 1/)
    assert.throws(() => parseOptions(['--scenarios', 'get-everything']), /unknown scenario get-everything/)
    assert.throws(() => parseOptions(['--perf', 'baseline']), /unknown scenario baseline/)
    assert.throws(() => parseOptions(['--perf-call-graph']), /goes with --perf/)
    assert.throws(() => parseOptions(['--workers', '2']), /needs --db postgres/)
    assert.throws(() => parseOptions(['--compare', 'HEAD', '--scale']), /not --scale/)
    assert.throws(() => parseOptions(['--node-flags=max-semi-space-size=8']), /is not a --flag/)
  })
})
