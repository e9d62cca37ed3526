import { type Compilable, CompiledQuery, type Kysely } from 'kysely'
import { directOf } from './direct.js'
import type { QueryRunner } from './query-runner.js'
import { registerStatementName } from './query-runner.js'
import type { DB } from './schema.js'

// Parameters are built into the query as marker strings, then found again in the compiled
// parameter list; nothing else in a query can produce a string starting with a NUL character.
const MARK = '\u0000param:'

type Slot = { readonly name: string } | { readonly constant: unknown }

/** Where a prepared query runs: a transaction (or the Kysely instance), or a read runner. */
export type QueryTarget = Kysely<DB> | QueryRunner

/**
 * A query built with Kysely once and compiled once; each call only fills in parameter values.
 * Building and compiling a Kysely query costs more than running a small SQLite query, so hot
 * paths never do it per request (performance issue).
 */
export class PreparedQuery<P extends object, R> {
  readonly sql: string
  private readonly slots: readonly Slot[]

  constructor(compiled: CompiledQuery) {
    this.sql = compiled.sql
    this.slots = compiled.parameters.map(
      (value): Slot => (typeof value === 'string' && value.startsWith(MARK) ? { name: value.slice(MARK.length) } : { constant: value })
    )
    registerStatementName(this.sql)
  }

  private values(params: P): unknown[] {
    const values = new Array<unknown>(this.slots.length)
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i]!
      values[i] = 'name' in slot ? (params as Record<string, unknown>)[slot.name] : slot.constant
    }
    return values
  }

  /** Runs the query and returns its rows. */
  async rows(target: QueryTarget, params: P): Promise<R[]> {
    const direct = directOf(target)
    if (direct !== undefined) return direct.rows<R>(this.sql, this.values(params))
    if ('executeQuery' in target) {
      const result = await target.executeQuery<R>(CompiledQuery.raw(this.sql, this.values(params)))
      return result.rows as R[]
    }
    return target.rows<R>(this.sql, this.values(params))
  }

  /** Runs the query and returns its first row, if any. */
  async first(target: QueryTarget, params: P): Promise<R | undefined> {
    const rows = await this.rows(target, params)
    return rows[0]
  }

  /** Runs a write inside a transaction and returns how many rows it changed. */
  async run(target: Kysely<DB>, params: P): Promise<number> {
    const direct = directOf(target)
    if (direct !== undefined) return direct.run(this.sql, this.values(params))
    const result = await target.executeQuery(CompiledQuery.raw(this.sql, this.values(params)))
    return Number(result.numAffectedRows ?? 0n)
  }
}

/** A typed stand-in for a named parameter inside a query builder. */
export type Param<P> = <K extends keyof P & string>(name: K) => P[K]

/**
 * Compiles a query for one database. `build` receives the Kysely instance and `param(name)`,
 * which stands for the value passed under that name at each call.
 */
export function prepare<P extends object, R>(
  db: Kysely<DB>,
  build: (db: Kysely<DB>, param: Param<P>) => Compilable<R>
): PreparedQuery<P, R> {
  const param = ((name: string) => `${MARK}${name}`) as Param<P>
  return new PreparedQuery<P, R>(build(db, param).compile())
}
