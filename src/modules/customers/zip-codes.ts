import fs from 'node:fs'
import { createRequire } from 'node:module'

/** Five digits or ZIP+4 (D-31); the form a stored zip has. */
export const ZIP_PATTERN = '^[0-9]{5}(-[0-9]{4})?$'

const ZIP = new RegExp(ZIP_PATTERN)

/** Where a US ZIP code is. */
export interface Place {
  city: string
  state: string
}

// One entry of the package's data: `"10001":{"zip":"10001",…,"city":"New York","state":"NY","country":"US"}`.
const ENTRY = /"([0-9]{5})":(\{[^{}]*\})/g

let places: Map<string, Place> | undefined

/**
 * The US entries of the bundled `zipcodes` package (D-31, no network), read from its data file as
 * text. Loading the package itself makes V8 compile a 5 MB object literal, which costs about
 * 85 MiB of resident memory for as long as the process lives; this keeps ~40,000 small entries.
 * The package also holds Canadian codes: only country `US` counts.
 */
function loadPlaces(): Map<string, Place> {
  const file = createRequire(import.meta.url).resolve('zipcodes/lib/codes.js')
  const text = fs.readFileSync(file, 'utf8')
  const map = new Map<string, Place>()
  for (const match of text.matchAll(ENTRY)) {
    const entry = JSON.parse(match[2]!) as { city?: unknown; state?: unknown; country?: unknown }
    if (entry.country === 'US' && typeof entry.city === 'string' && typeof entry.state === 'string') {
      map.set(match[1]!, { city: entry.city, state: entry.state })
    }
  }
  // A changed data format must fail loudly, never answer unknown_zip for every code.
  if (map.size < 30_000) throw new Error(`the zipcodes data file holds only ${map.size} US entries; its format may have changed`)
  return map
}

/** City and state of a well-formed US ZIP code, or undefined when it is not in the database. */
export function placeOfZip(zip: string): Place | undefined {
  if (!ZIP.test(zip)) return undefined
  places ??= loadPlaces()
  return places.get(zip.slice(0, 5))
}
