import type { ExpressionBuilder, QueryCreator } from 'kysely'
import type { DB } from '../../db/schema.js'

// The per-step order counters (D-44) belong to the catalogue; orders keeps them in step with its
// changes, in its own transaction and statements, through these fragments (one writer per table).

/** The UPDATE counting one more order at a step. */
export function stepCounterIn(db: QueryCreator<DB>, stepId: number) {
  return db
    .updateTable('service_steps')
    .set((eb) => ({ order_count: eb('order_count', '+', 1) }))
    .where('id', '=', stepId)
}

/** The UPDATE counting one order fewer at a step. */
export function stepCounterOut(db: QueryCreator<DB>, stepId: number) {
  return db
    .updateTable('service_steps')
    .set((eb) => ({ order_count: eb('order_count', '-', 1) }))
    .where('id', '=', stepId)
}

/** The counters of a move: one more order at step `to`, one fewer at the other step updated. */
function moveSet(to: number) {
  return (eb: ExpressionBuilder<DB, 'service_steps'>) => ({
    order_count: eb('order_count', '+', eb.case().when('id', '=', to).then(1).else(-1).end())
  })
}

/** Both counters of a move in one UPDATE, the rows in whatever order the plan reads them (SQLite). */
export function stepCountersMove(db: QueryCreator<DB>, from: number, to: number) {
  return db.updateTable('service_steps').set(moveSet(to)).where('id', 'in', [from, to])
}

/**
 * Both counters of a move, their rows locked in id order first, the locks taken in WITH
 * (`step_locks`): PostgreSQL, where rows locked in plan order deadlock concurrent moves. `start`
 * may hold more WITH clauses (a move's order, history and outbox rows in the same statement).
 */
export function stepCountersMoveLocked(start: QueryCreator<DB>, from: number, to: number) {
  return start
    .with('step_locks', (db) => db.selectFrom('service_steps').select('id').where('id', 'in', [from, to]).orderBy('id').forNoKeyUpdate())
    .updateTable('service_steps')
    .set(moveSet(to))
    .where('id', 'in', (eb) => eb.selectFrom('step_locks').select('step_locks.id'))
}
