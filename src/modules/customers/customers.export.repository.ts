import type { Kysely } from 'kysely'
import { type ExportTable, isoTime } from '../../common/export-table.js'
import type { DB } from '../../db/schema.js'

const COLUMNS = [
  'customer_id',
  'email',
  'first_name',
  'last_name',
  'phone',
  'street',
  'apartment',
  'city',
  'state',
  'zip',
  'preference',
  'created_at',
  'updated_at'
] as const

/** customers.csv (D-94): the profile only; never the password hash, card data or tokens (D-34). */
export async function exportCustomers(db: Kysely<DB>): Promise<ExportTable[]> {
  const rows = await db
    .selectFrom('customers')
    .select(['id', 'email', 'first_name', 'last_name', 'phone', 'street', 'apartment', 'city', 'state', 'zip', 'preference'])
    .select(['created_at', 'updated_at'])
    .orderBy('created_at')
    .orderBy('id')
    .execute()
  return [
    {
      file: 'customers.csv',
      columns: COLUMNS,
      rows: rows.map((row) => [
        row.id,
        row.email,
        row.first_name,
        row.last_name,
        row.phone,
        row.street,
        row.apartment,
        row.city,
        row.state,
        row.zip,
        row.preference,
        isoTime(row.created_at),
        isoTime(row.updated_at)
      ])
    }
  ]
}
