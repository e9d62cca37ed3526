import type { Compilable, CompiledQuery, Kysely, QueryCreator, Transaction } from 'kysely'
import type { Dialect } from './dialect.js'
import type { DB } from './schema.js'

/** What a runner needs of a statement compiled once: its SQL and its stable name. */
export interface CompiledStatement {
  /** Stable and unique per database, e.g. `orders.fullView`: the PostgreSQL prepared statement's name. */
  readonly name: string
  readonly sql: string
}

/** Runs statements compiled once outside any transaction: the database's reader. */
export interface Reader {
  rows<R>(statement: CompiledStatement, values: readonly unknown[]): Promise<R[]>
}

/**
 * The open database transaction of one use case (unit-of-work.ts). Statements compiled once run on
 * its connection (SQLite: straight on the writer; PostgreSQL: Kysely's executeQuery); anything built
 * per call goes through `db`, on the same connection.
 */
export interface Tx extends Reader {
  /** Kysely on this transaction, for statements built per call. */
  readonly db: Transaction<DB>
  /** Runs a write and answers how many rows it changed. */
  run(statement: CompiledStatement, values: readonly unknown[]): Promise<number>
}

// Parameters are built into the query as marker strings, then found again in the compiled
// parameter list; nothing else in a query can produce a string starting with a NUL character.
const MARK = '\u0000param:'

type Slot = { readonly name: string } | { readonly constant: unknown }

/**
 * A query built with Kysely once and compiled once per database; each call only fills in parameter
 * values. Outside a transaction it reads through the database's reader (the one place that choice
 * is made); with a `Tx` it runs in that transaction.
 */
export class Statement<P extends object, R> implements CompiledStatement {
  readonly sql: string
  private readonly slots: readonly Slot[]

  constructor(
    readonly name: string,
    compiled: CompiledQuery,
    private readonly reader: Reader
  ) {
    this.sql = compiled.sql
    this.slots = compiled.parameters.map(
      (value): Slot => (typeof value === 'string' && value.startsWith(MARK) ? { name: value.slice(MARK.length) } : { constant: value })
    )
  }

  private values(params: P): unknown[] {
    const values = new Array<unknown>(this.slots.length)
    for (let i = 0; i < this.slots.length; i++) {
      const slot = this.slots[i]!
      values[i] = 'name' in slot ? (params as Record<string, unknown>)[slot.name] : slot.constant
    }
    return values
  }

  /** Its rows: in `tx`, or through the reader when there is none. */
  rows(params: P, tx?: Tx): Promise<R[]> {
    return (tx ?? this.reader).rows<R>(this, this.values(params))
  }

  /** Its first row, if any: in `tx`, or through the reader when there is none. */
  async first(params: P, tx?: Tx): Promise<R | undefined> {
    const rows = await (tx ?? this.reader).rows<R>(this, this.values(params))
    return rows[0]
  }

  /** Runs a write in `tx` and answers how many rows it changed. */
  run(params: P, tx: Tx): Promise<number> {
    return tx.run(this, this.values(params))
  }
}

/** A typed stand-in for a named parameter inside a query builder: the value of `params[name]` at each call. */
export type Param<P> = <K extends keyof P & string>(name: K) => P[K]

/** Builds a statement's query from the Kysely instance and its parameter stand-in. */
export type StatementBuilder<P, R> = (db: Kysely<DB>, param: Param<P>) => Compilable<R>

/**
 * What a repository compiles its statements with: a database (database.ts), or the compile-only one
 * of `npm run sql` (compile-only.ts).
 */
export interface StatementCompiler {
  /** Kysely for building queries; on a database also for running what is built per call. */
  readonly db: Kysely<DB>
  readonly dialect: Dialect
  /** Compiles a query once under a stable name (`<area>.<what>`, unique per database). */
  prepare<P extends object, R>(name: string, build: StatementBuilder<P, R>): Statement<P, R>
}

const marker = ((name: string) => `${MARK}${name}`) as Param<never>

/**
 * The statements of one database by name. A name stands for one SQL text: compiling it again (a
 * repository built twice) gives the same text, and another text under a taken name is a bug.
 */
export class StatementRegistry {
  private readonly texts = new Map<string, string>()

  constructor(
    private readonly db: Kysely<DB>,
    private readonly reader: Reader,
    /** Told of each statement the first time its name is compiled (PostgreSQL: its prepared-statement name). */
    private readonly compiled?: (statement: CompiledStatement) => void
  ) {}

  prepare<P extends object, R>(name: string, build: StatementBuilder<P, R>): Statement<P, R> {
    const statement = new Statement<P, R>(name, build(this.db, marker as Param<P>).compile(), this.reader)
    const known = this.texts.get(name)
    if (known === undefined) {
      this.texts.set(name, statement.sql)
      this.compiled?.(statement)
    } else if (known !== statement.sql) {
      throw new Error(`statement ${name} was compiled before with another SQL text`)
    }
    return statement
  }

  /** Every statement compiled so far, by name. */
  entries(): IterableIterator<[string, string]> {
    return this.texts.entries()
  }
}

/** A WITH clause's query, built from the query creator it is given. */
type WriteClause = Parameters<QueryCreator<DB>['with']>[1]

/**
 * `start` with a WITH clause that writes and is never read (PostgreSQL writes in WITH): several
 * writes of a use case in one statement. The clause's rows are not referenced, so the database
 * type of what follows need not name it.
 */
export function withWrite(start: QueryCreator<DB>, name: string, write: WriteClause): QueryCreator<DB> {
  // The one widening of a query creator: its added CTE is invisible to the statements built on it.
  return start.with(name, write) as unknown as QueryCreator<DB>
}
