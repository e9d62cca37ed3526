import { type Kysely, sql, type Transaction } from 'kysely'
import type { Dialect } from '../../db/dialect.js'
import { prepare } from '../../db/prepared.js'
import type { QueryRunner } from '../../db/query-runner.js'
import type { DB } from '../../db/schema.js'
import type { ServiceStepRow } from './services.views.js'

/** One step's counter, in service creation order and step order. */
export interface StatsCounterRow {
  step_id: number
  service_id: number
  position: number
  order_count: number
}

/** A service as the use cases need it. */
export interface ServiceRecord {
  id: number
  public_id: string
  name: string
  step_count: number
}

/** How a use case holds a service row on PostgreSQL while it works (no-op on SQLite). */
export type ServiceLock = 'share' | 'update' | 'none'

/** SQL of services and their steps. Hot reads are compiled once per database. */
export function servicesRepository(db: Kysely<DB>, dialect: Dialect) {
  // A service and, when it exists, the step at `position`: one query tells both misses apart.
  const stepView = prepare<{ key: string; position: number }, Omit<ServiceStepRow, 'position'> & { position: number | null }>(db, (db, p) =>
    db
      .selectFrom('services as s')
      .leftJoin('service_steps as st', (join) => join.onRef('st.service_id', '=', 's.id').on('st.position', '=', p('position')))
      .select([
        's.public_id as service_id',
        's.name as service_name',
        's.step_count',
        'st.position',
        'st.description',
        'st.button_title',
        'st.events'
      ])
      .where('s.name_key', '=', p('key'))
  )

  // Counters are kept per step in the same transaction as every order change, so this reads
  // services x steps integers whatever the number of orders (D-44, performance issue). They come as
  // one JSON text of [step id, service id, position, count] tuples: one value for the driver instead
  // of a row object per step, which on PostgreSQL (statistics read per request) was most of the time.
  const counters = prepare<Record<string, never>, { counters: string }>(db, (db) =>
    db
      .selectFrom('service_steps')
      .select(
        dialect
          .jsonArrayRows(
            [sql.ref('id'), sql.ref('service_id'), sql.ref('position'), sql.ref('order_count')],
            sql.join([sql.ref('service_id'), sql.ref('position')])
          )
          .as('counters')
      )
  )

  return {
    stepView: (runner: QueryRunner, key: string, position: number) => stepView.first(runner, { key, position }),

    /** Every step's counter, and the text they were read as (equal texts: equal counters). */
    counters: async (runner: QueryRunner): Promise<{ text: string; rows: StatsCounterRow[] }> => {
      const text = (await counters.first(runner, {}))?.counters ?? '[]'
      const tuples = JSON.parse(text) as Array<[number, number, number, number]>
      return { text, rows: tuples.map(([step_id, service_id, position, order_count]) => ({ step_id, service_id, position, order_count })) }
    },

    /** The service with this name key, locked as asked on PostgreSQL. */
    findByKey: (trx: Transaction<DB>, key: string, lock: ServiceLock): Promise<ServiceRecord | undefined> => {
      let query = trx.selectFrom('services').select(['id', 'public_id', 'name', 'step_count']).where('name_key', '=', key)
      if (dialect.supportsRowLocks && lock === 'update') query = query.forUpdate()
      if (dialect.supportsRowLocks && lock === 'share') query = query.forShare()
      return query.executeTakeFirst()
    },

    /** Holds a service row (by id) on PostgreSQL; returns its step count. */
    lockById: async (trx: Transaction<DB>, id: number, lock: Exclude<ServiceLock, 'none'>): Promise<number> => {
      let query = trx.selectFrom('services').select('step_count').where('id', '=', id)
      if (dialect.supportsRowLocks) query = lock === 'update' ? query.forUpdate() : query.forShare()
      const row = await query.executeTakeFirstOrThrow()
      return row.step_count
    },

    insertService: async (
      trx: Transaction<DB>,
      row: { public_id: string; name: string; name_key: string; image_title: string; created_at: number }
    ): Promise<number> => {
      const inserted = await trx
        .insertInto('services')
        .values({ ...row, step_count: 1 })
        .returning('id')
        .executeTakeFirstOrThrow()
      return Number(inserted.id)
    },

    insertStep: async (
      trx: Transaction<DB>,
      row: { service_id: number; position: number; description: string; button_title: string; events: string }
    ): Promise<number> => {
      const inserted = await trx
        .insertInto('service_steps')
        .values({ ...row, order_count: 0 })
        .returning('id')
        .executeTakeFirstOrThrow()
      return Number(inserted.id)
    },

    /**
     * Moves the steps at `from` and after up by one. Through negative numbers, so the unique
     * (service_id, position) constraint holds after each statement on both databases.
     */
    shiftUp: async (trx: Transaction<DB>, serviceId: number, from: number): Promise<void> => {
      await trx
        .updateTable('service_steps')
        .set({ position: sql<number>`-(position + 1)` })
        .where('service_id', '=', serviceId)
        .where('position', '>=', from)
        .execute()
      await flipNegative(trx, serviceId)
    },

    /** Moves the steps after `after` down by one (the step at `after` was removed). */
    shiftDown: async (trx: Transaction<DB>, serviceId: number, after: number): Promise<void> => {
      await trx
        .updateTable('service_steps')
        .set({ position: sql<number>`-(position - 1)` })
        .where('service_id', '=', serviceId)
        .where('position', '>', after)
        .execute()
      await flipNegative(trx, serviceId)
    },

    stepAt: (trx: Transaction<DB>, serviceId: number, position: number) =>
      trx
        .selectFrom('service_steps')
        .select(['id', 'order_count'])
        .where('service_id', '=', serviceId)
        .where('position', '=', position)
        .executeTakeFirst(),

    deleteStep: async (trx: Transaction<DB>, stepId: number): Promise<void> => {
      await trx.deleteFrom('service_steps').where('id', '=', stepId).execute()
    },

    changeStepCount: async (trx: Transaction<DB>, serviceId: number, delta: 1 | -1): Promise<void> => {
      await trx
        .updateTable('services')
        .set((eb) => ({ step_count: eb('step_count', '+', delta) }))
        .where('id', '=', serviceId)
        .execute()
    }
  }

  async function flipNegative(trx: Transaction<DB>, serviceId: number): Promise<void> {
    await trx
      .updateTable('service_steps')
      .set({ position: sql<number>`-position` })
      .where('service_id', '=', serviceId)
      .where('position', '<', 0)
      .execute()
  }
}

export type ServicesRepository = ReturnType<typeof servicesRepository>
