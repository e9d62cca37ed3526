import type { StatementCompiler } from '../../db/statement.js'

/** A step's counter row with its service's name and image title and its description. */
export interface StepTextRow {
  step_id: number
  service_id: number
  position: number
  order_count: number
  texts_version: number
  service_name: string
  image_title: string
  description: string
}

/** Every step's counter and texts, in service and step order, in one statement (step-texts.ts); compiled once. */
export function stepTextsQuery(database: StatementCompiler) {
  return database.prepare<Record<string, never>, StepTextRow>('catalogue.stepTexts', (db) =>
    db
      .selectFrom('service_steps as st')
      .innerJoin('services as s', 's.id', 'st.service_id')
      .select([
        'st.id as step_id',
        'st.service_id',
        'st.position',
        'st.order_count',
        'st.texts_version',
        's.name as service_name',
        's.image_title',
        'st.description'
      ])
      .orderBy('st.service_id')
      .orderBy('st.position')
  )
}
