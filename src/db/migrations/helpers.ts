import { sql } from 'kysely'

/** `column in ('a', 'b')` as a CHECK expression; the values are constants of the code, never input. */
export function sqlIn(column: string, values: readonly string[]) {
  return sql`${sql.ref(column)} in (${sql.join(values.map((v) => sql.lit(v)))})`
}
