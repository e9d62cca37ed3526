/**
 * A way to run SQL straight on the connection of an open transaction, without Kysely's layers
 * (SQLite: sqlite.ts `SqliteDirect`). Only statements compiled once use it (prepared.ts).
 */
export interface DirectStatements {
  /** Rows of a statement that returns rows (a SELECT, or a write with RETURNING), else none. */
  rows<R>(sqlText: string, parameters: readonly unknown[]): R[]
  /** Runs a write and returns how many rows it changed. */
  run(sqlText: string, parameters: readonly unknown[]): number
}

// The open transactions (Kysely objects) whose statements may run directly. Weak: a transaction
// that is forgotten without `forgetDirect` does not stay in memory for it.
const directTransactions = new WeakMap<object, DirectStatements>()

/** Lets statements compiled once run directly while `transaction` is open. */
export function allowDirect(transaction: object, direct: DirectStatements): void {
  directTransactions.set(transaction, direct)
}

/** Ends `allowDirect` when the transaction ends. */
export function forgetDirect(transaction: object): void {
  directTransactions.delete(transaction)
}

/** The direct path of a transaction, if it has one. */
export function directOf(target: object): DirectStatements | undefined {
  return directTransactions.get(target)
}
