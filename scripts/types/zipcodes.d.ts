/** The parts of the `zipcodes` package (a bundled US and Canadian postal code database) this code uses. */
declare module 'zipcodes' {
  /** One postal code; `country` is `US` or `Canada` (Canadian codes are their first three characters). */
  interface ZipCodeEntry {
    zip: string
    latitude: number
    longitude: number
    city: string
    state: string
    country: string
  }

  interface ZipCodes {
    /** Every code, keyed by its text (`'90210'`, `'K1A'`). A plain object: check own keys. */
    readonly codes: Readonly<Record<string, ZipCodeEntry>>
    /** The entry of a code, or undefined. */
    lookup(zip: string | number): ZipCodeEntry | undefined
  }

  const zipcodes: ZipCodes
  export = zipcodes
}
