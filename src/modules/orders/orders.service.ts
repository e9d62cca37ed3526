import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import { newId } from '../../common/ids.js'
import type { TimeFormatter } from '../../common/time-format.js'
import type { Database } from '../../db/database.js'
import type { Tx } from '../../db/statement.js'
import type { Caller, UseCaseRunner } from '../../platform/idempotency.js'
import type { Principal } from '../../platform/principal.js'
import { invalidField, problems } from '../../platform/problems.js'
import { serviceKeyOf, serviceNameKey } from '../catalogue/index.js'
import { outboxWriter } from '../notifications/index.js'
import { type ChangedField, fieldChangeDescription } from './field-changes.js'
import { assertVisible, authorOf, checkDeliveryAfterPickup, timestampOf, wholeInRange } from './order-rules.js'
import { type LockedOrder, type OrdersRepository, ordersRepository } from './orders.repository.js'
import type {
  CreateTransactionBody,
  CreateTransactionResponse,
  HistoryResponse,
  MoveBody,
  TransactionView,
  UpdateTransactionBody,
  UpdateTransactionResponse
} from './orders.schemas.js'
import type { Author } from './orders.table.js'
import { toCreateView, toHistoryView, toTransactionView, toUpdateView } from './orders.views.js'
import { type StepEntryWriter, stepEntryWriter } from './step-entry.js'

type View = Static<typeof TransactionView>

/** Create is sent `notes` (spec) and update `note`; each takes the other name too, and both must agree. */
function noteOf(body: { notes?: string; note?: string }): string | undefined {
  if (body.notes !== undefined && body.note !== undefined && body.notes !== body.note) {
    throw invalidField('/note', 'must equal notes when both are sent')
  }
  return body.notes ?? body.note
}

/** Orders (the wire's transactions): create, read, update, move, history (D-50 to D-56). */
export class OrdersService {
  private readonly orders: OrdersRepository
  private readonly steps: StepEntryWriter

  constructor(
    database: Database,
    private readonly useCases: UseCaseRunner,
    private readonly clock: Clock,
    private readonly time: TimeFormatter,
    /** Draws a transaction code (D-50). */
    drawCode: () => number
  ) {
    this.orders = ordersRepository(database)
    this.steps = stepEntryWriter(database, this.orders, outboxWriter(database), drawCode)
  }

  /** Places an order at step 1 of a service, open (D-50); its step's events are emitted. */
  async create(body: CreateTransactionBody, caller: Caller): Promise<Static<typeof CreateTransactionResponse>> {
    const principal = caller.principal
    // D-12: a customer orders only for themselves.
    if (principal.kind === 'customer' && body.customer_id !== principal.customerId) {
      throw problems.forbidden('A customer may create transactions only for themselves.')
    }
    const pickup = timestampOf(body.pickup_timestamp, '/pickup_timestamp')
    const delivery = timestampOf(body.delivery_timestamp, '/delivery_timestamp')
    checkDeliveryAfterPickup(pickup, delivery)
    const note = noteOf(body) ?? ''
    const serviceKey = serviceKeyOf(body.service_name)
    return this.useCases.run(caller, async (tx) => {
      const service = await this.orders.createStart(tx, serviceKey, body.customer_id)
      if (service === 'no customer') throw problems.customerNotFound()
      if (service === 'no service') throw problems.serviceNotFound()
      const publicId = newId('trx')
      const code = await this.steps.create(
        tx,
        {
          publicId,
          customerId: body.customer_id,
          serviceId: service.service_id,
          stepId: service.step.id,
          pickupAt: pickup,
          deliveryAt: delivery,
          note,
          now: this.clock.now()
        },
        { service: { name: service.service_name, stepCount: service.step_count }, step: service.step, author: authorOf(principal) }
      )
      return toCreateView(
        { public_id: publicId, code, service_name: service.service_name, pickup_at: pickup, delivery_at: delivery, note, status: 'open' },
        this.time
      )
    })
  }

  /** The full view (spec Get transaction), in one query. */
  async get(publicId: string, principal: Principal): Promise<View> {
    const order = await this.orders.fullView(publicId)
    if (order === undefined) throw problems.transactionNotFound()
    assertVisible(order.customer_id, principal)
    return toTransactionView(order, this.time)
  }

  /** Changes the fields sent (D-53); customers only their own open orders' note and times. */
  async update(body: UpdateTransactionBody, caller: Caller): Promise<Static<typeof UpdateTransactionResponse>> {
    const principal = caller.principal
    if (principal.kind === 'customer' && (body.status !== undefined || body.service_name !== undefined)) {
      throw problems.forbidden('A customer may change only note, pickup_timestamp and delivery_timestamp.')
    }
    const pickup = body.pickup_timestamp === undefined ? undefined : timestampOf(body.pickup_timestamp, '/pickup_timestamp')
    const delivery = body.delivery_timestamp === undefined ? undefined : timestampOf(body.delivery_timestamp, '/delivery_timestamp')
    const serviceKey = body.service_name === undefined ? undefined : serviceKeyOf(body.service_name)
    const note = noteOf(body)
    return this.useCases.run(caller, async (tx) => {
      const order = await this.orders.lock(tx, body.transaction_id)
      if (order === undefined) throw problems.transactionNotFound()
      assertVisible(order.customer_id, principal)
      if (principal.kind === 'customer' && order.status === 'closed') throw problems.transactionClosed()
      const next = { pickup_at: pickup ?? order.pickup_at, delivery_at: delivery ?? order.delivery_at }
      checkDeliveryAfterPickup(next.pickup_at, next.delivery_at)
      const now = this.clock.now()
      const author = authorOf(principal)
      // Where the order is after this update: its step, or step 1 of a new service.
      let at = { serviceName: order.service_name, position: order.position, description: order.step_description }
      if (serviceKey !== undefined && serviceKey !== serviceNameKey(order.service_name)) {
        at = await this.changeService(tx, order, serviceKey, author, now)
      }
      const changed: ChangedField[] = []
      if (pickup !== undefined && pickup !== order.pickup_at) changed.push('pickup_timestamp')
      if (delivery !== undefined && delivery !== order.delivery_at) changed.push('delivery_timestamp')
      if (note !== undefined && note !== order.note) changed.push('note')
      const status = body.status ?? order.status
      if (changed.length > 0 || status !== order.status) {
        await this.orders.update(tx, {
          id: order.id,
          pickupAt: next.pickup_at,
          deliveryAt: next.delivery_at,
          note: note ?? order.note,
          status,
          now
        })
      }
      if (changed.length > 0) {
        await this.orders.addHistory(tx, {
          orderId: order.id,
          at: now,
          type: 'updated',
          position: at.position,
          description: fieldChangeDescription(changed),
          ...author
        })
      }
      if (status !== order.status) {
        await this.orders.addHistory(tx, {
          orderId: order.id,
          at: now,
          type: status === 'closed' ? 'closed' : 'reopened',
          position: at.position,
          description: at.description,
          ...author
        })
      }
      return toUpdateView(
        { public_id: order.public_id, code: order.code, service_name: at.serviceName, ...next, note: note ?? order.note, status },
        this.time
      )
    })
  }

  /** D-53: a new service puts the order at its step 1, moving the counters, emitting that step's events. */
  private async changeService(
    tx: Tx,
    order: LockedOrder,
    serviceKey: string,
    author: Author,
    now: number
  ): Promise<{ serviceName: string; position: number; description: string }> {
    const service = await this.orders.serviceStart(tx, serviceKey)
    if (service === undefined) throw problems.serviceNotFound()
    await this.orders.changeService(tx, order.id, service.service_id, service.step.id, now)
    await this.orders.moveCounters(tx, order.step_id, service.step.id)
    await this.steps.record(tx, {
      order: { id: order.id, publicId: order.public_id, code: order.code, customerId: order.customer_id },
      service: { name: service.service_name, stepCount: service.step_count },
      step: service.step,
      type: 'updated',
      author,
      now
    })
    return { serviceName: service.service_name, position: service.step.position, description: service.step.description }
  }

  /**
   * D-55: one step forward and that step's events; at the last step the order closes and stays.
   * The order row is locked, so concurrent moves queue and each advances exactly one step.
   */
  async move(body: MoveBody, caller: Caller): Promise<View> {
    const expected = body.position_number === undefined ? undefined : wholeInRange(body.position_number, '/position_number', 1, 10_000)
    return this.useCases.run(caller, async (tx) => {
      const order = await this.orders.lockForMove(tx, body.transaction_id)
      if (order === undefined || order.customer_id !== body.customer_id) throw problems.transactionNotFound()
      if (order.status === 'closed') throw problems.transactionClosed()
      if (expected !== undefined && expected !== order.position) throw problems.positionChanged(order.position)
      const now = this.clock.now()
      const author = authorOf(caller.principal)
      if (order.position >= order.step_count) {
        await this.orders.setStep(tx, order.id, order.step_id, 'closed', now)
        await this.orders.addHistory(tx, {
          orderId: order.id,
          at: now,
          type: 'closed',
          position: order.position,
          description: order.description,
          ...author
        })
        // The receipt is not changed by a move and the order is locked: the view read above is
        // the order now, but for its status.
        return toTransactionView({ ...order, status: 'closed' }, this.time)
      }
      const step = this.orders.nextStep(order)
      if (step === undefined) throw new Error(`service ${order.service_id} has no step ${order.position + 1}`)
      await this.steps.record(tx, {
        order: { id: order.id, publicId: order.public_id, code: order.code, customerId: order.customer_id },
        service: { name: order.service_name, stepCount: order.step_count },
        step,
        type: 'moved',
        author,
        now,
        setsStep: true,
        countsMoveFrom: order.step_id
      })
      return toTransactionView(
        { ...order, position: step.position, description: step.description, button_title: step.buttonTitle, events: step.events },
        this.time
      )
    })
  }

  /** D-56: what happened to the order, oldest first. */
  async history(publicId: string, principal: Principal): Promise<Static<typeof HistoryResponse>> {
    const rows = await this.orders.historyOf(publicId)
    if (rows.length === 0) throw problems.transactionNotFound()
    assertVisible(rows[0]!.customer_id, principal)
    return toHistoryView(publicId, rows)
  }
}
