import { ZIP_PLACES } from './zip-places.data.js'

/** Five digits or ZIP+4 (D-31); the form a stored zip has. */
export const ZIP_PATTERN = '^[0-9]{5}(-[0-9]{4})?$'

const ZIP = new RegExp(ZIP_PATTERN)

/** Where a US ZIP code is. */
export interface Place {
  city: string
  state: string
}

/** The bundled US ZIP code database (D-31, no network). */
export interface ZipDirectory {
  /** City and state of a well-formed US ZIP code, or undefined when it is not in the database. */
  placeOf(zip: string): Place | undefined
}

// The package holds about 41,000 US codes: far fewer means the generated file is damaged.
const MIN_CODES = 30_000

/** The directory of a zip-places.data.ts text; throws a one-line reason when the text is damaged. */
export function parseZipPlaces(text: string): ZipDirectory {
  const places = new Map<string, Place>()
  const lines = text.split('\n')
  for (const [index, line] of lines.entries()) {
    if (line === '') continue
    const [state, city, codes, extra] = line.split('\t')
    const zips = codes?.split(' ') ?? []
    if (extra !== undefined || state === undefined || !/^[A-Z]{2}$/.test(state) || !city || !zips.every((zip) => /^[0-9]{5}$/.test(zip))) {
      throw new Error(`the bundled ZIP code data (zip-places.data.ts) is damaged at line ${index + 1}`)
    }
    const place: Place = Object.freeze({ city, state })
    for (const zip of zips) places.set(zip, place)
  }
  if (places.size < MIN_CODES) throw new Error(`the bundled ZIP code data (zip-places.data.ts) holds only ${places.size} codes`)
  return { placeOf: (zip) => (ZIP.test(zip) ? places.get(zip.slice(0, 5)) : undefined) }
}

let bundled: ZipDirectory | undefined

/** The bundled directory, read once per process when the first app is built (at start, never by a request). */
export function loadZipDirectory(): ZipDirectory {
  bundled ??= parseZipPlaces(ZIP_PLACES)
  return bundled
}
