import path from 'node:path'
import { fileURLToPath } from 'node:url'
import BetterSqlite3 from 'better-sqlite3'
import Fastify from 'fastify'
import pg from 'pg'
import { TimeFormatter } from '../src/common/time-format.js'
import { type FullViewRow, toTransactionView } from '../src/modules/orders/orders.views.js'

/**
 * The hot path at the speed of hand-prepared SQL: a bare Fastify (no credentials, hooks or metrics)
 * answering `POST /v1/transaction/:id` with the full view from one statement prepared once, shaped by
 * the API's own view function. Measured in the same run on the same data, it shows how much of
 * get-transaction's cost is the API's platform rather than its SQL. Run as its own process with PORT
 * and DATABASE_URL set.
 */

// The same columns and receipt-line JSON as the API's full view (orders.repository.ts fullViewSelect).
const SELECT = `select o.id, o.public_id, o.code, o.customer_id, o.status, o.pickup_at, o.delivery_at, o.note,
  s.public_id as service_id, s.name as service_name, s.step_count,
  st.position, st.description, st.button_title, st.events,
  (select LINES from receipt_lines l inner join items i on i.id = l.item_id where l.order_id = o.id) as receipt_lines
from orders o
inner join services s on s.id = o.service_id
inner join service_steps st on st.id = o.step_id`

const SQLITE_FULL_VIEW = SELECT.replace(
  'LINES',
  'json_group_array(json_array(l.id, l.item_id, l.quantity, l.unit_price_cents, i.title, i.image_url) order by l.id)'
).concat(' where o.public_id = ?')

const POSTGRES_FULL_VIEW = SELECT.replace(
  'LINES',
  "coalesce(json_agg(json_build_array(l.id, l.item_id, l.quantity, l.unit_price_cents, i.title, i.image_url) order by l.id), '[]')::text"
).concat(' where o.public_id = $1')

type FindOrder = (publicId: string) => Promise<FullViewRow | undefined>

function sqliteFinder(file: string): { find: FindOrder; close: () => void } {
  const connection = new BetterSqlite3(file.replace(/^sqlite:/, ''), { readonly: true, fileMustExist: true })
  const statement = connection.prepare<[string], FullViewRow>(SQLITE_FULL_VIEW)
  return { find: async (publicId) => statement.get(publicId), close: () => connection.close() }
}

function postgresFinder(url: string): { find: FindOrder; close: () => Promise<void> } {
  // As many connections as the API's pool (db/postgres.ts), and a named statement: prepared once per connection.
  const pool = new pg.Pool({ connectionString: url, max: 10 })
  const find: FindOrder = async (publicId) => {
    const result = await pool.query<FullViewRow>({ name: 'reference_full_view', text: POSTGRES_FULL_VIEW, values: [publicId] })
    const row = result.rows[0]
    // node-postgres answers bigint columns as text; the view wants numbers, as the API's driver gives.
    return row === undefined
      ? undefined
      : { ...row, id: Number(row.id), code: Number(row.code), pickup_at: Number(row.pickup_at), delivery_at: Number(row.delivery_at) }
  }
  return { find, close: () => pool.end() }
}

export async function startReference(port: number, databaseUrl: string, host = '127.0.0.1'): Promise<() => Promise<void>> {
  const finder = /^postgres(ql)?:\/\//.test(databaseUrl) ? postgresFinder(databaseUrl) : sqliteFinder(databaseUrl)
  const time = new TimeFormatter(process.env.TIME_ZONE ?? 'UTC')
  const app = Fastify({ logger: false })
  app.get('/healthz', async () => ({ status: 'ok' }))
  app.post<{ Params: { id: string } }>('/v1/transaction/:id', async (request, reply) => {
    const order = await finder.find(request.params.id)
    if (order === undefined) return reply.code(404).send({ error: 'not found' })
    return toTransactionView(order, time)
  })
  await app.listen({ port, host })
  return async () => {
    await app.close()
    await finder.close()
  }
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (isMain) {
  const port = Number(process.env.PORT ?? 3998)
  const databaseUrl = process.env.DATABASE_URL
  if (databaseUrl === undefined) throw new Error('DATABASE_URL must name the seeded database')
  const stop = await startReference(port, databaseUrl)
  process.stdout.write(`reference listening on http://127.0.0.1:${port}\n`)
  const shutdown = () => {
    void stop().then(() => process.exit(0))
  }
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)
}
