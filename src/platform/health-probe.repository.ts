import type { StatementCompiler, Tx } from '../db/statement.js'

/** The write /readyz makes to learn whether the database takes writes: one row, upserted. */
export function healthProbeRepository(database: StatementCompiler) {
  const probe = database.prepare<{ at: number }, never>('health.probe', (db, param) =>
    db
      .insertInto('health_probe')
      .values({ id: 1, probed_at: param('at') })
      .onConflict((conflict) => conflict.column('id').doUpdateSet({ probed_at: param('at') }))
  )
  return {
    /** Writes the probe's row in `tx`, with the time it was written. */
    write: async (tx: Tx, at: number): Promise<void> => {
      await probe.run({ at }, tx)
    }
  }
}
