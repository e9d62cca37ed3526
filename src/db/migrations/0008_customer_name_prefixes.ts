import { type Kysely, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

// Prefixes of each name kept, in code points. The migration's own copy: search reads
// customers/search.words.ts, which must stay equal to it.
const NAME_PREFIX_MAX = 8

/**
 * D-33, one-word search in O(log n + limit) (issue 7, BENCHMARKS.md finding 5): every prefix of
 * 1 to NAME_PREFIX_MAX code points of each customer's lower-cased first and last name, with the sort
 * keys and the fields of a hit. A word's hits are then one primary-key range already in result
 * order (last name, first name, id), read until the limit and answered from the rows themselves,
 * where before the first names in the word's range were all read and sorted: a short first-name
 * prefix cost in proportion to the customers. On SQLite the table is its primary key (WITHOUT
 * ROWID): no second copy of the rows, no lookup from index to row.
 *
 * Kept by triggers, so every path that writes customers (the API, the CLI, seeds, another process)
 * keeps it right. A first and a last name sharing a prefix give one row, not two.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema
    .createTable('customer_name_prefixes')
    .addColumn('prefix', 'text', (c) => d.binaryText(c.notNull()))
    .addColumn('last_name_lc', 'text', (c) => d.binaryText(c.notNull()))
    .addColumn('first_name_lc', 'text', (c) => d.binaryText(c.notNull()))
    .addColumn('customer_id', 'text', (c) => c.notNull().references('customers.id').onDelete('cascade'))
    .addColumn('first_name', 'text', (c) => c.notNull())
    .addColumn('last_name', 'text', (c) => c.notNull())
    .addColumn('email', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_name_prefixes_pk', ['prefix', 'last_name_lc', 'first_name_lc', 'customer_id'])
    .$call((table) => (d.name === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table))
    .execute()
  await db.schema.createIndex('customer_name_prefixes_customer').on('customer_name_prefixes').column('customer_id').execute()

  const lengths = Array.from({ length: NAME_PREFIX_MAX }, (_, i) => i + 1)
  if (d.name === 'sqlite') {
    const rowsOf = (row: 'new' | 'customers') =>
      sql.raw(`
      select substr(n.name, 1, k.len), ${row}.last_name_lc, ${row}.first_name_lc, ${row}.id, ${row}.first_name, ${row}.last_name, ${row}.email
      from (select ${row}.first_name_lc as name union select ${row}.last_name_lc) as n,
           (${lengths.map((len) => `select ${len} as len`).join(' union all ')}) as k
      where length(n.name) >= k.len`)
    await sql`create trigger customer_name_prefixes_insert after insert on customers begin
      insert or ignore into customer_name_prefixes (prefix, last_name_lc, first_name_lc, customer_id, first_name, last_name, email) ${rowsOf('new')};
    end`.execute(db)
    await sql`create trigger customer_name_prefixes_update after update of first_name_lc, last_name_lc, first_name, last_name, email on customers begin
      delete from customer_name_prefixes where customer_id = old.id;
      insert or ignore into customer_name_prefixes (prefix, last_name_lc, first_name_lc, customer_id, first_name, last_name, email) ${rowsOf('new')};
    end`.execute(db)
    await sql`insert or ignore into customer_name_prefixes (prefix, last_name_lc, first_name_lc, customer_id, first_name, last_name, email)
      select substr(n.name, 1, k.len), n.last_name_lc, n.first_name_lc, n.id, n.first_name, n.last_name, n.email
      from (select id, first_name_lc, last_name_lc, first_name, last_name, email, first_name_lc as name from customers
            union all select id, first_name_lc, last_name_lc, first_name, last_name, email, last_name_lc from customers) as n,
           (${sql.raw(lengths.map((len) => `select ${len} as len`).join(' union all '))}) as k
      where length(n.name) >= k.len`.execute(db)
    return
  }

  await sql`create function customer_name_prefixes_refresh() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        delete from customer_name_prefixes where customer_id = old.id;
      end if;
      insert into customer_name_prefixes (prefix, last_name_lc, first_name_lc, customer_id, first_name, last_name, email)
        select substr(n.name, 1, k.len), new.last_name_lc, new.first_name_lc, new.id, new.first_name, new.last_name, new.email
        from unnest(array[new.first_name_lc, new.last_name_lc]) as n(name),
             generate_series(1, ${sql.lit(NAME_PREFIX_MAX)}) as k(len)
        where length(n.name) >= k.len
        on conflict do nothing;
      return null;
    end
  $$`.execute(db)
  await sql`create trigger customer_name_prefixes_insert after insert on customers
    for each row execute function customer_name_prefixes_refresh()`.execute(db)
  await sql`create trigger customer_name_prefixes_update after update of first_name_lc, last_name_lc, first_name, last_name, email on customers
    for each row execute function customer_name_prefixes_refresh()`.execute(db)
  await sql`insert into customer_name_prefixes (prefix, last_name_lc, first_name_lc, customer_id, first_name, last_name, email)
    select substr(n.name, 1, k.len), c.last_name_lc, c.first_name_lc, c.id, c.first_name, c.last_name, c.email
    from customers as c,
         unnest(array[c.first_name_lc, c.last_name_lc]) as n(name),
         generate_series(1, ${sql.lit(NAME_PREFIX_MAX)}) as k(len)
    where length(n.name) >= k.len
    on conflict do nothing`.execute(db)
}
