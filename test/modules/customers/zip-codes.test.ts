import assert from 'node:assert/strict'
import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import os from 'node:os'
import path from 'node:path'
import { describe, it } from 'node:test'
import zipcodes from 'zipcodes'
import { DATA_FILE, zipPlacesText } from '../../../scripts/generate-zip-places.js'
import { loadZipDirectory, parseZipPlaces } from '../../../src/modules/customers/zip-codes.js'
import { childEnv, MAIN, nodeArgs, ROOT } from '../../helpers/processes.js'

const zips = loadZipDirectory()

describe('ZIP codes (D-31)', () => {
  it('should give city and state of five-digit and ZIP+4 codes, leading zeros kept', () => {
    assert.deepEqual(zips.placeOf('90210'), { city: 'Beverly Hills', state: 'CA' })
    assert.deepEqual(zips.placeOf('02134-1234'), { city: 'Allston', state: 'MA' })
    assert.deepEqual(zips.placeOf('00501'), { city: 'Holtsville', state: 'NY' })
  })

  it('should know nothing of codes missing from the database, malformed codes or object keys', () => {
    for (const zip of ['00000', '99999', '9021', '902100', '90210-12', ' 90210', 'K1A', 'constructor', '__proto__']) {
      assert.equal(zips.placeOf(zip), undefined, zip)
    }
  })

  it('should answer as the package does for every US code, and know none of its Canadian codes', () => {
    const entries = Object.values(zipcodes.codes)
    const us = entries.filter((entry) => entry.country === 'US')
    assert.ok(us.length > 40_000)
    for (const entry of us) assert.deepEqual(zips.placeOf(entry.zip), { city: entry.city, state: entry.state }, entry.zip)
    const canadian = entries.filter((entry) => entry.country !== 'US')
    assert.ok(canadian.length > 0)
    for (const entry of canadian) assert.equal(zips.placeOf(entry.zip), undefined, entry.zip)
  })

  it('should keep the checked-in data as the generator writes it from the package', () => {
    // After a package upgrade: npx tsx scripts/generate-zip-places.ts
    assert.equal(fs.readFileSync(DATA_FILE, 'utf8'), zipPlacesText(zipcodes.codes))
  })
})

describe('damaged ZIP code data', () => {
  const lines = fs.readFileSync(DATA_FILE, 'utf8')

  it('should be refused with a one-line reason', () => {
    assert.throws(
      () => parseZipPlaces(`${lines}NY\tNew York\t1000\n`),
      /^Error: the bundled ZIP code data \(assets\/zip-places\.tsv\) is damaged at line \d+$/
    )
    assert.throws(() => parseZipPlaces(lines.replace('\tAdjuntas\t', ' Adjuntas ')), /damaged at line 2$/)
    assert.throws(() => parseZipPlaces(lines.split('\n').slice(0, 100).join('\n')), /holds only \d+ codes$/)
  })

  it('should stop the start with exit 1 and one line, before anything listens', () => {
    // A copy of the entry's tree with damaged data, beside the real node_modules.
    const copy = fs.mkdtempSync(path.join(os.tmpdir(), 'so-zip-'))
    try {
      const tree = MAIN.split('/')[0]!
      fs.cpSync(path.join(ROOT, tree), path.join(copy, tree), { recursive: true, filter: (file) => !file.endsWith('.map') })
      fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(copy, 'node_modules'))
      fs.copyFileSync(path.join(ROOT, 'package.json'), path.join(copy, 'package.json'))
      fs.mkdirSync(path.join(copy, 'assets'))
      fs.writeFileSync(path.join(copy, 'assets', 'zip-places.tsv'), 'NY\tHoltsville\t00501\n')
      const result = spawnSync(process.execPath, nodeArgs(MAIN), {
        cwd: copy,
        env: childEnv({ PORT: '0', DATA_DIR: path.join(copy, 'data'), DATABASE_URL: 'sqlite::memory:' }),
        encoding: 'utf8',
        timeout: 60_000
      })
      // Migrations may have run and been logged: no request could be answered, nothing listened.
      assert.doesNotMatch(result.stdout, /listening/)
      assert.equal(
        result.stderr,
        'service-ordering: could not start: the bundled ZIP code data (assets/zip-places.tsv) holds only 1 codes\n'
      )
      assert.equal(result.status, 1)
    } finally {
      fs.rmSync(copy, { recursive: true, force: true })
    }
  })
})
