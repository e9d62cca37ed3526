import type { Static } from 'typebox'
import { wholeNumber } from '../../common/numbers.js'
import type { Database } from '../../db/database.js'
import { invalidField } from '../../platform/problems.js'
import { type SearchRepository, searchRepository } from './search.repository.js'
import type { SearchBody, SearchResponse } from './search.schemas.js'
import { DEFAULT_SEARCH_LIMIT, queryWords } from './search.words.js'

const MAX_LIMIT = 100
/** D-70: characters of the trimmed query (D-33). */
const MAX_QUERY = 100

/** Customer search by the starts of name words, of the e-mail, and by phone digits (D-33). */
export class SearchService {
  private readonly repo: SearchRepository

  constructor(database: Database) {
    this.repo = searchRepository(database)
  }

  /** Customers each word of the query matches (D-33), ordered, at most `limit`. */
  async search(body: SearchBody): Promise<Static<typeof SearchResponse>> {
    const query = body.query.trim()
    if (query === '') throw invalidField('/query', 'must not be empty')
    // Counted composed, as names are (customers.fields.ts): é typed as e and an accent is one character.
    if ([...query.normalize('NFC')].length > MAX_QUERY) throw invalidField('/query', `must be at most ${MAX_QUERY} characters`)
    const limit = body.limit === undefined ? DEFAULT_SEARCH_LIMIT : wholeNumber(body.limit)
    if (limit === undefined || limit < 1 || limit > MAX_LIMIT) throw invalidField('/limit', `must be a whole number from 1 to ${MAX_LIMIT}`)
    const [first, ...others] = queryWords(query)
    // A query of invisible characters only (zero-width spaces) folds to no word at all: nobody.
    if (first === undefined) return { customer: [] }
    const rows = await this.repo.search([first, ...others], limit)
    return {
      customer: rows.map((row) => ({
        customer_id: row.id,
        customer_name: `${row.first_name} ${row.last_name}`.trim(),
        customer_email: row.email
      }))
    }
  }
}
