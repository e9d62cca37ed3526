import type { Kysely } from 'kysely'
import { prepare } from '../../db/prepared.js'
import type { QueryRunner } from '../../db/query-runner.js'
import type { DB } from '../../db/schema.js'

interface StepText {
  serviceName: string
  imageTitle: string
  description: string
}

/**
 * The texts of every step (its service's name and image title, its description), kept in memory by
 * step id. They never change once written (no operation edits them; a new step gets a new id), so
 * statistics read only integer counters per request and take texts from here, loading them again
 * only when a step id appears that this process has not seen (created here or in another process).
 */
export class CatalogueTexts {
  private texts = new Map<number, StepText>()
  private readonly all

  constructor(db: Kysely<DB>) {
    this.all = prepare<Record<string, never>, { id: number; service_name: string; image_title: string; description: string }>(db, (db) =>
      db
        .selectFrom('service_steps as st')
        .innerJoin('services as s', 's.id', 'st.service_id')
        .select(['st.id', 's.name as service_name', 's.image_title', 'st.description'])
    )
  }

  /** The texts of these steps, reloading once when any is unknown. */
  async of(runner: QueryRunner, stepIds: readonly number[]): Promise<ReadonlyMap<number, StepText>> {
    if (stepIds.some((id) => !this.texts.has(id))) {
      const fresh = new Map<number, StepText>()
      for (const row of await this.all.rows(runner, {})) {
        fresh.set(row.id, { serviceName: row.service_name, imageTitle: row.image_title, description: row.description })
      }
      // Replacing the map also forgets removed steps, so it never grows past the catalogue.
      this.texts = fresh
    }
    return this.texts
  }
}
