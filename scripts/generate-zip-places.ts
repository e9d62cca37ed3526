// Writes assets/zip-places.tsv from the public API of the `zipcodes` package:
// the city and state of every US ZIP code (D-31), one line per place. Run it after upgrading the
// package; test/modules/customers/zip-codes.test.ts fails while the checked-in file differs.
//
//   npx tsx scripts/generate-zip-places.ts
import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import zipcodes from 'zipcodes'

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..')
export const DATA_FILE = path.join(ROOT, 'assets/zip-places.tsv')

// Text that would end a line or a field.
const UNSAFE = /[\t\n\r]/

/** The data file's text: `STATE<tab>City<tab>zip zip …` lines ordered by their first zip. */
export function zipPlacesText(codes: typeof zipcodes.codes): string {
  const places = new Map<string, string[]>()
  // The package also holds Canadian codes (three characters): only US five-digit codes count.
  for (const [zip, entry] of Object.entries(codes)) {
    if (entry.country !== 'US' || !/^[0-9]{5}$/.test(zip)) continue
    if (UNSAFE.test(entry.city) || !/^[A-Z]{2}$/.test(entry.state)) throw new Error(`zip ${zip}: unexpected city or state`)
    const key = `${entry.state}\t${entry.city}`
    const zips = places.get(key) ?? []
    zips.push(zip)
    places.set(key, zips)
  }
  const lines = [...places].map(([key, zips]) => ({ first: zips.sort()[0]!, line: `${key}\t${zips.join(' ')}` }))
  lines.sort((a, b) => (a.first < b.first ? -1 : 1))
  return `${lines.map((entry) => entry.line).join('\n')}\n`
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  fs.writeFileSync(DATA_FILE, zipPlacesText(zipcodes.codes))
  console.log(`wrote ${path.relative(ROOT, DATA_FILE)}`)
}
