import assert from 'node:assert/strict'
import { describe, it } from 'node:test'
import { timesIn } from '../../web/src/shared/time-zone.js'

// The console's one time zone (D-51): wall times typed as shop time become the right instants,
// including on the days clocks change.
const iso = (seconds: number | undefined) => (seconds === undefined ? 'none' : new Date(seconds * 1000).toISOString())

describe('shop time in America/New_York', () => {
  const ny = timesIn('America/New_York')

  it('should read a winter and a summer wall time with their own offsets', () => {
    assert.equal(iso(ny.toEpoch('2026-11-27T09:00')), '2026-11-27T14:00:00.000Z')
    assert.equal(iso(ny.toEpoch('2026-07-01T09:00')), '2026-07-01T13:00:00.000Z')
    assert.equal(iso(ny.toEpoch('2026-07-01T09:00:30')), '2026-07-01T13:00:30.000Z')
  })

  it('should read a time skipped when clocks go forward in the old offset', () => {
    assert.equal(iso(ny.toEpoch('2026-03-08T01:59')), '2026-03-08T06:59:00.000Z')
    assert.equal(iso(ny.toEpoch('2026-03-08T02:30')), '2026-03-08T07:30:00.000Z')
    assert.equal(iso(ny.toEpoch('2026-03-08T03:00')), '2026-03-08T07:00:00.000Z')
  })

  it('should read a time that happens twice when clocks go back as the first of the two', () => {
    assert.equal(iso(ny.toEpoch('2026-11-01T00:59')), '2026-11-01T04:59:00.000Z')
    assert.equal(iso(ny.toEpoch('2026-11-01T01:30')), '2026-11-01T05:30:00.000Z')
    assert.equal(iso(ny.toEpoch('2026-11-01T02:00')), '2026-11-01T07:00:00.000Z')
  })

  it('should write instants back as datetime-local values and for people', () => {
    const seconds = Date.parse('2026-11-27T14:00:00Z') / 1000
    assert.equal(ny.toInputValue(seconds), '2026-11-27T09:00')
    assert.equal(ny.toInputValue(Date.parse('2026-11-01T06:30:00Z') / 1000), '2026-11-01T01:30')
    assert.equal(ny.format(seconds), 'Nov 27, 2026, 9:00 AM')
    assert.equal(ny.formatDate(seconds), 'Nov 27, 2026')
    assert.equal(ny.formatIso('2026-11-27T14:00:00.000Z'), 'Nov 27, 2026, 9:00 AM')
    assert.equal(ny.formatIso('not a time'), 'not a time')
    assert.equal(ny.label, 'Times are in America/New_York (shop time)')
  })

  it('should refuse values that are not datetime-local wall times', () => {
    for (const value of ['', 'nope', '2026-02-30T09:00', '2026-11-27T24:00', '2026-11-27 09:00', '2026-11-27'])
      assert.equal(ny.toEpoch(value), undefined, value)
  })

  it('should give a wall time some days ahead in the zone, whatever the UTC date is', () => {
    // 02:00 UTC on the 28th is still the 27th in New York.
    assert.equal(ny.inputValueInDays(1, 9, Date.parse('2026-11-28T02:00:00Z')), '2026-11-28T09:00')
  })
})

describe('shop time in other zones', () => {
  it('should handle half-hour offsets and half-hour clock changes', () => {
    assert.equal(iso(timesIn('Asia/Kolkata').toEpoch('2026-01-01T00:00')), '2025-12-31T18:30:00.000Z')
    const lordHowe = timesIn('Australia/Lord_Howe')
    assert.equal(iso(lordHowe.toEpoch('2026-10-04T02:15')), '2026-10-03T15:45:00.000Z')
  })

  it('should fall back to UTC for a zone Intl does not know', () => {
    const utc = timesIn('Not/A_Zone')
    assert.equal(utc.zone, 'UTC')
    assert.equal(iso(utc.toEpoch('2026-11-27T09:00')), '2026-11-27T09:00:00.000Z')
  })
})
