import type { Kysely } from 'kysely'
import type { DB } from '../../db/schema.js'
import type { StatementCompiler, Tx } from '../../db/statement.js'

/** One step of a service with its service's columns: what the catalogue list is made from (D-47). */
export interface CatalogueRow {
  service_row_id: number
  service_id: string
  service_name: string
  image_title: string
  created_at: number
  position: number
  description: string
  button_title: string
  events: string
  expected_minutes: number | null
}

/** A step as step update reads it before it writes every column back (D-47). */
export interface EditableStep {
  id: number
  description: string
  button_title: string
  events: string
  expected_minutes: number | null
}

/** The services with their steps, in creation order and step order. */
function catalogueSelect(db: Kysely<DB>) {
  return db
    .selectFrom('services as s')
    .innerJoin('service_steps as st', 'st.service_id', 's.id')
    .select([
      's.id as service_row_id',
      's.public_id as service_id',
      's.name as service_name',
      's.image_title',
      's.created_at',
      'st.position',
      'st.description',
      'st.button_title',
      'st.events',
      'st.expected_minutes'
    ])
    .orderBy('s.id')
    .orderBy('st.position')
}

/** SQL of the catalogue's editing (D-47, D-48), compiled once per database. */
export function catalogueEditRepository(database: StatementCompiler) {
  const all = database.prepare<Record<string, never>, CatalogueRow>('catalogue.all', (db) => catalogueSelect(db))

  const ofService = database.prepare<{ id: number }, CatalogueRow>('catalogue.ofService', (db, param) =>
    catalogueSelect(db).where('s.id', '=', param('id'))
  )

  // A service by name key, but for one (a rename's own service may keep its name in another case).
  const otherByKey = database.prepare<{ key: string; id: number }, { id: number }>('catalogue.otherByKey', (db, param) =>
    db.selectFrom('services').select('id').where('name_key', '=', param('key')).where('id', '<>', param('id'))
  )

  const updateService = database.prepare<{ id: number; name: string; key: string; imageTitle: string }, never>(
    'catalogue.updateService',
    (db, param) =>
      db
        .updateTable('services')
        .set({ name: param('name'), name_key: param('key'), image_title: param('imageTitle') })
        .where('id', '=', param('id'))
  )

  // Statistics show the service's name and image title on its steps: their texts changed (step-texts.ts).
  const serviceTextsChanged = database.prepare<{ id: number }, never>('catalogue.serviceTextsChanged', (db, param) =>
    db
      .updateTable('service_steps')
      .set((eb) => ({ texts_version: eb('texts_version', '+', 1) }))
      .where('service_id', '=', param('id'))
  )

  const stepAt = database.prepare<{ serviceId: number; position: number }, EditableStep>('catalogue.stepAt', (db, param) =>
    db
      .selectFrom('service_steps')
      .select(['id', 'description', 'button_title', 'events', 'expected_minutes'])
      .where('service_id', '=', param('serviceId'))
      .where('position', '=', param('position'))
  )

  const updateStep = database.prepare<EditableStep, never>('catalogue.updateStep', (db, param) =>
    db
      .updateTable('service_steps')
      .set((eb) => ({
        description: param('description'),
        button_title: param('button_title'),
        events: param('events'),
        expected_minutes: param('expected_minutes'),
        texts_version: eb('texts_version', '+', 1)
      }))
      .where('id', '=', param('id'))
  )

  return {
    /** Every service's steps, services in creation order (D-47). */
    all: () => all.rows({}),

    /** One service's steps, read in the use case that changed them. */
    ofService: (tx: Tx, id: number) => ofService.rows({ id }, tx),

    /** Whether another service than `id` has this name key (D-40: unique ignoring case). */
    nameTaken: async (tx: Tx, key: string, id: number): Promise<boolean> => (await otherByKey.first({ key, id }, tx)) !== undefined,

    /** Writes a service's name and image title; its steps' texts versions move with them. */
    updateService: async (tx: Tx, row: { id: number; name: string; key: string; imageTitle: string }): Promise<void> => {
      await updateService.run(row, tx)
      await serviceTextsChanged.run({ id: row.id }, tx)
    },

    stepAt: (tx: Tx, serviceId: number, position: number) => stepAt.first({ serviceId, position }, tx),

    /** Writes every column of a step's texts and expectation, raising its texts version. */
    updateStep: async (tx: Tx, step: EditableStep): Promise<void> => {
      await updateStep.run(step, tx)
    }
  }
}

export type CatalogueEditRepository = ReturnType<typeof catalogueEditRepository>
