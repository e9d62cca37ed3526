import type { StatementCompiler } from '../../db/statement.js'
import type { FullViewRow } from './orders.views.js'
import { fullViewSelect } from './orders-full-view.repository.js'

/** What a page of orders is filtered by (D-57); `before` is the last id of the previous page. */
export interface ListFilters {
  customerId?: string
  serviceKey?: string
  position?: number
  status?: 'open' | 'closed'
  before?: number
  /** Rows to read: the page size and one more, to tell whether another page follows. */
  limit: number
}

const FILTERS = ['customerId', 'serviceKey', 'position', 'status', 'before'] as const

/**
 * D-57: orders newest first, filtered, keyset-paginated by internal id. One query per page: the
 * page's ids in a subquery, their full views around it. One statement per combination of filters
 * (32), each compiled once; the page size is a parameter.
 */
export function ordersListRepository(database: StatementCompiler) {
  const statements = Array.from({ length: 1 << FILTERS.length }, (_, shape) => {
    const has = (filter: (typeof FILTERS)[number]) => (shape & (1 << FILTERS.indexOf(filter))) !== 0
    const name = ['orders.list', ...FILTERS.filter(has)].join('.')
    return database.prepare<ListFilters, FullViewRow>(name, (db, param) => {
      let ids = db.selectFrom('orders as o').select('o.id')
      if (has('customerId')) ids = ids.where('o.customer_id', '=', param('customerId')!)
      if (has('serviceKey')) {
        ids = ids.where('o.service_id', 'in', db.selectFrom('services').select('id').where('name_key', '=', param('serviceKey')!))
      }
      if (has('position')) {
        ids = ids.where('o.step_id', 'in', db.selectFrom('service_steps').select('id').where('position', '=', param('position')!))
      }
      if (has('status')) ids = ids.where('o.status', '=', param('status')!)
      if (has('before')) ids = ids.where('o.id', '<', param('before')!)
      const page = ids.orderBy('o.id', 'desc').limit(param('limit'))
      return fullViewSelect(db, database.dialect).where('orders.id', 'in', page).orderBy('orders.id', 'desc')
    })
  })

  return {
    /** The full views of one page of orders, newest first. */
    page(filters: ListFilters): Promise<FullViewRow[]> {
      let shape = 0
      for (let i = 0; i < FILTERS.length; i++) if (filters[FILTERS[i]!] !== undefined) shape |= 1 << i
      return statements[shape]!.rows(filters)
    }
  }
}

export type OrdersListRepository = ReturnType<typeof ordersListRepository>
