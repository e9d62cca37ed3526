import { type Kysely, type RawBuilder, sql } from 'kysely'
import type { Dialect } from '../dialect.js'

// Frozen copies of what search reads (customers/search.words.ts must stay equal): prefixes kept of
// each term, in code points, and the shortest prefix kept of a phone term (D-33: 3 or more digits).
const TERM_PREFIX_MAX = 8
const PHONE_PREFIX_MIN = 3
// A phone has at most 15 digits (D-32): its terms of 3 digits or more start at digit 1 to 13.
const PHONE_STARTS = 15 - PHONE_PREFIX_MIN + 1

/**
 * D-33 as revised: a query word matches the start of any word of the first or last name, the start
 * of the e-mail, or (3 or more digits) anywhere in the phone's digits. `customer_search_terms` holds
 * each customer's terms: every name word (split at spaces, and at hyphens too: "jones" finds
 * Smith-Jones), the e-mail (a backtick as an apostrophe, as the name key folds it), and each suffix
 * of the phone digits, so "appears anywhere" is the start of a suffix. A row per prefix of 1 to 8
 * code points of a term (3 to 8 for the phone's), keyed (prefix, order_key, term): a word's hits are
 * one key range in result order, and `order_key` (last name key, first name key and id, U+0001
 * between, which sorts as the three do) lets the ranges of several words be walked together.
 * A word longer than 8 reads the range of its first 8 and compares the whole term.
 *
 * Kept by triggers, so every path that writes customers keeps it right; filled for the customers
 * there are. Replaces `customer_name_prefixes` (0008), which held the starts of whole names only,
 * and the first-name index of 0002, which nothing reads any more.
 */
export async function up(db: Kysely<any>, d: Dialect): Promise<void> {
  await db.schema
    .createTable('customer_search_terms')
    .addColumn('prefix', 'text', (c) => d.binaryText(c.notNull()))
    .addColumn('order_key', 'text', (c) => d.binaryText(c.notNull()))
    .addColumn('term', 'text', (c) => d.binaryText(c.notNull()))
    .addColumn('customer_id', 'text', (c) => c.notNull())
    .addPrimaryKeyConstraint('customer_search_terms_pk', ['prefix', 'order_key', 'term'])
    .addForeignKeyConstraint('customer_search_terms_customer_fk', ['customer_id'], 'customers', ['id'], (fk) => fk.onDelete('cascade'))
    .$call((table) => (d.name === 'sqlite' ? table.modifyEnd(sql`without rowid`) : table))
    .execute()
  await db.schema.createIndex('customer_search_terms_customer').on('customer_search_terms').column('customer_id').execute()

  if (d.name === 'sqlite') await sqliteTerms(db)
  else await postgresTerms(db)

  await db.schema.dropIndex('customers_first_name_search').execute()
}

const COLUMNS = sql.raw('prefix, order_key, term, customer_id')
// The columns terms are made of: a change of any other leaves the rows alone.
const TERM_SOURCES = ['first_name_lc', 'last_name_lc', 'email', 'phone'] as const
const APOSTROPHE = sql.lit("'")
const BACKTICK = sql.lit('`')

async function sqliteTerms(db: Kysely<any>): Promise<void> {
  const numbers = (from: number, to: number) =>
    sql.raw(Array.from({ length: to - from + 1 }, (_, i) => `select ${from + i} as n`).join(' union all '))
  // The words of the names as a JSON array: json_quote escapes all it must and writes no space or
  // hyphen of its own, so each space (or hyphen) ends one string and starts the next.
  const words = (c: string, separators: readonly string[]): RawBuilder<string> => {
    let quoted = `json_quote(${c}.first_name_lc || ' ' || ${c}.last_name_lc)`
    for (const separator of separators) quoted = `replace(${quoted}, '${separator}', '","')`
    return sql.raw(`'[' || ${quoted} || ']'`)
  }
  // The rows of customer `c`: the trigger's `new`, or every row of `customers as c` (the backfill:
  // SQLite has no LATERAL, so each kind of term reads the table itself).
  const rowsOf = (c: 'new' | 'c') => {
    const from = c === 'new' ? sql`` : sql`customers as c,`
    const keys = sql.raw(`${c}.last_name_lc || char(1) || ${c}.first_name_lc || char(1) || ${c}.id as order_key, ${c}.id as id`)
    const column = (name: string) => sql.raw(`${c}.${name}`)
    return sql`
    select substr(t.term, 1, k.n), t.order_key, t.term, t.id
    from (
      select ${keys}, w.value as term, 1 as shortest from ${from} json_each(${words(c, [' '])}) as w
      union all select ${keys}, w.value, 1 from ${from} json_each(${words(c, [' ', '-'])}) as w
      union all select ${keys}, replace(${column('email')}, ${BACKTICK}, ${APOSTROPHE}), 1 ${c === 'new' ? sql`` : sql`from customers as c`}
      union all select ${keys}, substr(${column('phone')}, p.n), ${sql.lit(PHONE_PREFIX_MIN)} from ${from} (${numbers(1, PHONE_STARTS)}) as p
        where length(${column('phone')}) - p.n + 1 >= ${sql.lit(PHONE_PREFIX_MIN)}
    ) as t, (${numbers(1, TERM_PREFIX_MAX)}) as k
    where t.term <> '' and k.n >= t.shortest and length(t.term) >= k.n`
  }

  await sql`create trigger customer_search_terms_insert after insert on customers begin
    insert or ignore into customer_search_terms (${COLUMNS}) ${rowsOf('new')};
  end`.execute(db)
  const changed = sql.raw(TERM_SOURCES.map((name) => `old.${name} is not new.${name}`).join(' or '))
  await sql`create trigger customer_search_terms_update after update of ${sql.raw(TERM_SOURCES.join(', '))} on customers
    when ${changed} begin
    delete from customer_search_terms where customer_id = old.id;
    insert or ignore into customer_search_terms (${COLUMNS}) ${rowsOf('new')};
  end`.execute(db)
  await sql`insert or ignore into customer_search_terms (${COLUMNS}) ${rowsOf('c')}`.execute(db)

  await sql`drop trigger customer_name_prefixes_insert`.execute(db)
  await sql`drop trigger customer_name_prefixes_update`.execute(db)
  await db.schema.dropTable('customer_name_prefixes').execute()
}

async function postgresTerms(db: Kysely<any>): Promise<void> {
  // Every term in the "C" collation of the table, whatever collation its source column has.
  const rowsOf = (c: 'new' | 'c') => {
    const column = (name: string) => sql.raw(`${c}.${name}`)
    const names = sql.raw(`${c}.first_name_lc || ' ' || ${c}.last_name_lc`)
    return sql`
    select substr(t.term, 1, k.n), ${sql.raw(`${c}.last_name_lc || chr(1) || ${c}.first_name_lc || chr(1) || ${c}.id`)} collate "C", t.term, ${column('id')}
    from (
      select w collate "C" as term, 1 as shortest from unnest(string_to_array(${names}, ' ')) as w
      union all select w collate "C", 1 from unnest(regexp_split_to_array(${names}, '[ -]')) as w
      union all select replace(${column('email')}, ${BACKTICK}, ${APOSTROPHE}) collate "C", 1
      union all select substr(${column('phone')}, p) collate "C", ${sql.lit(PHONE_PREFIX_MIN)}
        from generate_series(1, length(${column('phone')}) - ${sql.lit(PHONE_PREFIX_MIN - 1)}) as p
    ) as t, generate_series(1, ${sql.lit(TERM_PREFIX_MAX)}) as k(n)
    where t.term <> '' and k.n >= t.shortest and length(t.term) >= k.n`
  }

  await sql`create function customer_search_terms_refresh() returns trigger language plpgsql as $$
    begin
      if tg_op = 'UPDATE' then
        delete from customer_search_terms where customer_id = old.id;
      end if;
      insert into customer_search_terms (${COLUMNS}) ${rowsOf('new')}
        on conflict do nothing;
      return null;
    end
  $$`.execute(db)
  await sql`create trigger customer_search_terms_insert after insert on customers
    for each row execute function customer_search_terms_refresh()`.execute(db)
  const changed = sql.raw(TERM_SOURCES.map((name) => `old.${name} is distinct from new.${name}`).join(' or '))
  await sql`create trigger customer_search_terms_update after update of ${sql.raw(TERM_SOURCES.join(', '))} on customers
    for each row when (${changed}) execute function customer_search_terms_refresh()`.execute(db)
  await sql`insert into customer_search_terms (${COLUMNS}) select r.* from customers as c cross join lateral (${rowsOf('c')}) as r
    on conflict do nothing`.execute(db)

  await sql`drop trigger customer_name_prefixes_insert on customers`.execute(db)
  await sql`drop trigger customer_name_prefixes_update on customers`.execute(db)
  await sql`drop function customer_name_prefixes_refresh()`.execute(db)
  await db.schema.dropTable('customer_name_prefixes').execute()
}
