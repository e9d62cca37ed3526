import { type Kysely, sql } from 'kysely'
import type { Static } from 'typebox'
import type { TimeFormatter } from '../../common/time-format.js'
import type { Database } from '../../db/database.js'
import { type PreparedQuery, prepare } from '../../db/prepared.js'
import type { DB } from '../../db/schema.js'
import type { Principal } from '../../platform/principal.js'
import { invalidField } from '../../platform/problems.js'
import { serviceNameKey } from '../catalogue/names.js'
import { wholeInRange } from './order-rules.js'
import { fullViewSelect } from './orders.repository.js'
import type { ListBody, ListResponse } from './orders.schemas.js'
import { type FullViewRow, toTransactionView } from './orders.views.js'

interface Filters {
  customerId?: string
  serviceKey?: string
  position?: number
  status?: 'open' | 'closed'
  before?: number
  limit: number
}

// A cursor names the last order of a page; opaque to clients, checked when read back.
function encodeCursor(id: number): string {
  return Buffer.from(`o:${id}`, 'utf8').toString('base64url')
}

function decodeCursor(cursor: string): number {
  const match = /^o:([0-9]{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'))
  if (match === null) throw invalidField('/cursor', 'is not a cursor this API gave out')
  return Number(match[1])
}

/**
 * D-57: orders newest first, filtered, keyset-paginated by internal id. One query per page: the
 * page's ids in a subquery, their full views around it. Each combination of filters and page size is compiled once.
 */
export class OrdersList {
  private readonly compiled = new Map<string, PreparedQuery<Filters, FullViewRow>>()

  constructor(
    private readonly database: Database,
    private readonly time: TimeFormatter
  ) {}

  private query(filters: Filters): PreparedQuery<Filters, FullViewRow> {
    const shape = ['customerId', 'serviceKey', 'position', 'status', 'before'].filter((k) => filters[k as keyof Filters] !== undefined)
    // The page size (2 to 101) is written into the SQL: SQLite plans a bounded sort for a constant.
    const limit = filters.limit
    const key = `${shape.join(',')}:${limit}`
    let query = this.compiled.get(key)
    if (query === undefined) {
      query = prepare<Filters, FullViewRow>(this.database.db, (db: Kysely<DB>, p) => {
        let ids = db.selectFrom('orders as o').select('o.id')
        if (shape.includes('customerId')) ids = ids.where('o.customer_id', '=', p('customerId')!)
        if (shape.includes('serviceKey')) {
          ids = ids.where('o.service_id', 'in', db.selectFrom('services').select('id').where('name_key', '=', p('serviceKey')!))
        }
        if (shape.includes('position')) {
          ids = ids.where('o.step_id', 'in', db.selectFrom('service_steps').select('id').where('position', '=', p('position')!))
        }
        if (shape.includes('status')) ids = ids.where('o.status', '=', p('status')!)
        if (shape.includes('before')) ids = ids.where('o.id', '<', p('before')!)
        const page = ids.orderBy('o.id', 'desc').limit(sql.lit(limit))
        return fullViewSelect(db, this.database.dialect).where('orders.id', 'in', page).orderBy('orders.id', 'desc')
      })
      this.compiled.set(key, query)
    }
    return query
  }

  async list(body: ListBody, principal: Principal): Promise<Static<typeof ListResponse>> {
    const limit = body.limit === undefined ? 20 : wholeInRange(body.limit, '/limit', 1, 100)
    const filters: Filters = { limit: limit + 1 }
    if (principal.kind === 'customer') {
      // D-57: a customer sees only their own; a filter on another customer finds nothing.
      if (body.customer_id !== undefined && body.customer_id !== principal.customerId) return { transactions: [], next_cursor: null }
      filters.customerId = principal.customerId
    } else if (body.customer_id !== undefined) {
      filters.customerId = body.customer_id
    }
    if (body.service_name !== undefined) filters.serviceKey = serviceNameKey(body.service_name)
    if (body.position_number !== undefined) filters.position = wholeInRange(body.position_number, '/position_number', 1, 10_000)
    if (body.status !== undefined) filters.status = body.status
    if (body.cursor !== undefined) filters.before = decodeCursor(body.cursor)

    const rows = await this.query(filters).rows(this.database.reader, filters)
    // One more than the page was read to know whether another page exists.
    const page = rows.length > limit ? rows.slice(0, limit) : rows
    const views = page.map((row) => toTransactionView(row, this.time))
    return { transactions: views, next_cursor: rows.length > limit ? encodeCursor(page[limit - 1]!.id) : null }
  }
}
