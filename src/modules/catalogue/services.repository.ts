import { sql } from 'kysely'
import type { StatementCompiler, Tx } from '../../db/statement.js'
import type { ServiceStepRow } from './services.views.js'

/** One step's counter, in service creation order and step order. */
export interface StatsCounterRow {
  step_id: number
  service_id: number
  position: number
  order_count: number
  // Equal versions: equal texts (catalogue.table.ts).
  texts_version: number
}

/** A service as the use cases need it. */
export interface ServiceRecord {
  id: number
  public_id: string
  name: string
  step_count: number
}

/** A step as create service and add step write it (D-41, D-48). */
export interface NewStep {
  service_id: number
  position: number
  description: string
  button_title: string
  events: string
  expected_minutes: number | null
}

/** How a use case holds a service row on PostgreSQL while it works (no-op on SQLite). */
export type ServiceLock = 'share' | 'update' | 'none'

/** SQL of services and their steps, compiled once per database. */
export function servicesRepository(database: StatementCompiler) {
  const { dialect } = database
  // A service and, when it exists, the step at `position`: one query tells both misses apart.
  const stepView = database.prepare<{ key: string; position: number }, Omit<ServiceStepRow, 'position'> & { position: number | null }>(
    'services.stepView',
    (db, param) =>
      db
        .selectFrom('services as s')
        .leftJoin('service_steps as st', (join) => join.onRef('st.service_id', '=', 's.id').on('st.position', '=', param('position')))
        .select([
          's.public_id as service_id',
          's.name as service_name',
          's.step_count',
          'st.position',
          'st.description',
          'st.button_title',
          'st.events'
        ])
        .where('s.name_key', '=', param('key'))
  )

  // Counters are kept per step in the same transaction as every order change, so this reads
  // services x steps integers whatever the number of orders (D-44). They come as one JSON text of
  // [step id, service id, position, count, texts version] tuples: one value for the driver instead of a row object
  // per step, which on PostgreSQL (statistics read per request) was most of the time.
  const counters = database.prepare<Record<string, never>, { counters: string }>('services.counters', (db) =>
    db
      .selectFrom('service_steps')
      .select(
        dialect
          .jsonArrayRows(
            [sql.ref('id'), sql.ref('service_id'), sql.ref('position'), sql.ref('order_count'), sql.ref('texts_version')],
            sql.join([sql.ref('service_id'), sql.ref('position')])
          )
          .as('counters')
      )
  )

  // One statement per way of holding the row (D-42): for update, in share mode, or not at all.
  const byKey = (lock: ServiceLock) =>
    database.prepare<{ key: string }, ServiceRecord>(`services.byKey.${lock}`, (db, param) => {
      const query = db.selectFrom('services').select(['id', 'public_id', 'name', 'step_count']).where('name_key', '=', param('key'))
      if (!dialect.supportsRowLocks || lock === 'none') return query
      return lock === 'update' ? query.forUpdate() : query.forShare()
    })
  const findByKey = { none: byKey('none'), share: byKey('share'), update: byKey('update') }

  const stepCountById = (lock: Exclude<ServiceLock, 'none'>) =>
    database.prepare<{ id: number }, { step_count: number }>(`services.stepCount.${lock}`, (db, param) => {
      const query = db.selectFrom('services').select('step_count').where('id', '=', param('id'))
      if (!dialect.supportsRowLocks) return query
      return lock === 'update' ? query.forUpdate() : query.forShare()
    })
  const lockById = { share: stepCountById('share'), update: stepCountById('update') }

  const insertService = database.prepare<
    { public_id: string; name: string; name_key: string; image_title: string; created_at: number },
    { id: number }
  >('services.insert', (db, param) =>
    db
      .insertInto('services')
      .values({
        public_id: param('public_id'),
        name: param('name'),
        name_key: param('name_key'),
        image_title: param('image_title'),
        created_at: param('created_at'),
        step_count: 1
      })
      .returning('id')
  )

  const insertStep = database.prepare<NewStep, { id: number }>('services.insertStep', (db, param) =>
    db
      .insertInto('service_steps')
      .values({
        service_id: param('service_id'),
        position: param('position'),
        description: param('description'),
        button_title: param('button_title'),
        events: param('events'),
        expected_minutes: param('expected_minutes'),
        order_count: 0
      })
      .returning('id')
  )

  // Steps are renumbered through negative numbers, so the unique (service_id, position) constraint
  // holds after each statement on both databases.
  const shiftUp = database.prepare<{ serviceId: number; from: number }, never>('services.shiftUp', (db, param) =>
    db
      .updateTable('service_steps')
      .set({ position: sql<number>`-(position + 1)` })
      .where('service_id', '=', param('serviceId'))
      .where('position', '>=', param('from'))
  )
  const shiftDown = database.prepare<{ serviceId: number; after: number }, never>('services.shiftDown', (db, param) =>
    db
      .updateTable('service_steps')
      .set({ position: sql<number>`-(position - 1)` })
      .where('service_id', '=', param('serviceId'))
      .where('position', '>', param('after'))
  )
  const flipNegative = database.prepare<{ serviceId: number }, never>('services.flipNegative', (db, param) =>
    db
      .updateTable('service_steps')
      .set({ position: sql<number>`-position` })
      .where('service_id', '=', param('serviceId'))
      .where('position', '<', 0)
  )

  const stepAt = database.prepare<{ serviceId: number; position: number }, { id: number; order_count: number }>(
    'services.stepAt',
    (db, param) =>
      db
        .selectFrom('service_steps')
        .select(['id', 'order_count'])
        .where('service_id', '=', param('serviceId'))
        .where('position', '=', param('position'))
  )

  const deleteStep = database.prepare<{ id: number }, never>('services.deleteStep', (db, param) =>
    db.deleteFrom('service_steps').where('id', '=', param('id'))
  )

  const changeStepCount = database.prepare<{ id: number; delta: number }, never>('services.changeStepCount', (db, param) =>
    db
      .updateTable('services')
      .set((eb) => ({ step_count: eb('step_count', '+', param('delta')) }))
      .where('id', '=', param('id'))
  )

  return {
    stepView: (key: string, position: number) => stepView.first({ key, position }),

    /** Every step's counter, and the text they were read as (equal texts: equal counters). */
    counters: async (): Promise<{ text: string; rows: StatsCounterRow[] }> => {
      const text = (await counters.first({}))?.counters ?? '[]'
      const tuples = JSON.parse(text) as Array<[number, number, number, number, number]>
      return {
        text,
        rows: tuples.map(([step_id, service_id, position, order_count, texts_version]) => ({
          step_id,
          service_id,
          position,
          order_count,
          texts_version
        }))
      }
    },

    /** The service with this name key, locked as asked on PostgreSQL. */
    findByKey: (tx: Tx, key: string, lock: ServiceLock): Promise<ServiceRecord | undefined> => findByKey[lock].first({ key }, tx),

    /** Holds a service row (by id) on PostgreSQL; returns its step count. */
    lockById: async (tx: Tx, id: number, lock: Exclude<ServiceLock, 'none'>): Promise<number> => {
      const row = await lockById[lock].first({ id }, tx)
      if (row === undefined) throw new Error(`no service ${id}`)
      return row.step_count
    },

    insertService: async (
      tx: Tx,
      row: { public_id: string; name: string; name_key: string; image_title: string; created_at: number }
    ): Promise<number> => Number((await insertService.first(row, tx))!.id),

    insertStep: async (tx: Tx, row: NewStep): Promise<number> => Number((await insertStep.first(row, tx))!.id),

    /** Moves the steps at `from` and after up by one. */
    shiftUp: async (tx: Tx, serviceId: number, from: number): Promise<void> => {
      await shiftUp.run({ serviceId, from }, tx)
      await flipNegative.run({ serviceId }, tx)
    },

    /** Moves the steps after `after` down by one (the step at `after` was removed). */
    shiftDown: async (tx: Tx, serviceId: number, after: number): Promise<void> => {
      await shiftDown.run({ serviceId, after }, tx)
      await flipNegative.run({ serviceId }, tx)
    },

    stepAt: (tx: Tx, serviceId: number, position: number) => stepAt.first({ serviceId, position }, tx),

    deleteStep: async (tx: Tx, stepId: number): Promise<void> => {
      await deleteStep.run({ id: stepId }, tx)
    },

    changeStepCount: async (tx: Tx, serviceId: number, delta: 1 | -1): Promise<void> => {
      await changeStepCount.run({ id: serviceId, delta }, tx)
    }
  }
}

export type ServicesRepository = ReturnType<typeof servicesRepository>
