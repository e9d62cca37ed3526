import type { Static } from 'typebox'
import { wholeNumber } from '../../common/numbers.js'
import type { StatementCompiler } from '../../db/statement.js'
import { invalidField } from '../../platform/problems.js'
import { type ListPosition, type ListRepository, type ListRow, listRepository } from './list.repository.js'
import type { ListCustomersBody, ListCustomersResponse } from './list.schemas.js'

const DEFAULT_LIMIT = 20
const MAX_LIMIT = 100
const VERSION = 'c1'
// Text a name key may hold: no control characters, no lone surrogates (text the databases store).
const KEY_TEXT = /^[^\p{Cc}\p{Cs}]*$/u

// A cursor names the last customer of a page by its sort keys (so a rename of that customer moves
// no later page); opaque to clients, checked when read back.
function encodeCursor(row: ListRow): string {
  return Buffer.from(JSON.stringify([VERSION, row.last_name_lc, row.first_name_lc, row.id]), 'utf8').toString('base64url')
}

function decodeCursor(cursor: string): ListPosition {
  const refuse = () => invalidField('/cursor', 'is not a cursor this API gave out')
  let value: unknown
  try {
    value = JSON.parse(Buffer.from(cursor, 'base64url').toString('utf8'))
  } catch {
    throw refuse()
  }
  if (!Array.isArray(value) || value.length !== 4 || value[0] !== VERSION) throw refuse()
  const [, last, first, id] = value as unknown[]
  if (typeof last !== 'string' || typeof first !== 'string' || typeof id !== 'string') throw refuse()
  if (![last, first, id].every((text) => KEY_TEXT.test(text)) || id === '') throw refuse()
  // Only the exact text handed out: another spelling of the same bytes is not ours.
  if (Buffer.from(JSON.stringify(value), 'utf8').toString('base64url') !== cursor) throw refuse()
  return { last, first, id }
}

/** Browsing customers page by page, for the console (staff). */
export class CustomerListService {
  private readonly repo: ListRepository

  constructor(database: StatementCompiler) {
    this.repo = listRepository(database)
  }

  /** A page of customers by last name, first name and id, and the cursor of the next page. */
  async list(body: ListCustomersBody): Promise<Static<typeof ListCustomersResponse>> {
    const limit = body.limit === undefined ? DEFAULT_LIMIT : wholeNumber(body.limit)
    if (limit === undefined || limit < 1 || limit > MAX_LIMIT) throw invalidField('/limit', `must be a whole number from 1 to ${MAX_LIMIT}`)
    const after = body.cursor === undefined ? undefined : decodeCursor(body.cursor)
    // One more than the page is read to know whether another page follows.
    const rows = await this.repo.page(limit + 1, after)
    const page = rows.slice(0, limit)
    return {
      customers: page.map((row) => ({
        customer_id: row.id,
        customer_name: `${row.first_name} ${row.last_name}`.trim(),
        customer_email: row.email,
        phone: row.phone
      })),
      next_cursor: rows.length > limit ? encodeCursor(page[limit - 1]!) : null
    }
  }
}
