import assert from 'node:assert/strict'
import { sha256Hex } from '../../src/common/crypto.js'
import { newSecret } from '../../src/common/ids.js'
import type { TestApp } from './app.js'
import { type Access, type CallerClass, type D12Table, readD12 } from './d12-table.js'

export type { Access, CallerClass } from './d12-table.js'

import { createCustomer, createItem, createOrder, createService } from './factories.js'

/**
 * Every /v1 operation in one place, for the hardening suites (issue 8): its path, whether it takes
 * a body, who may call it (D-12, read from decisions.md, never from the code) and a
 * factory for a request that succeeds. The fuzz suite mutates these requests; the authorization
 * suite sends them as every kind of caller.
 */

/**
 * The table of D-12 as this suite was written against it, row by row. The suite runs on the table
 * read from decisions.md itself (d12-table.ts) whenever that file is beside the clone, as in CI,
 * and a test checks that this copy still says the same; the copy only stands in where it is not.
 */
const D12_AS_WRITTEN = {
  'sign in, request password reset, confirm password reset, create customer': { app: 'yes', customer: 'yes', staff: 'yes' },
  'get service step, get items': { app: 'yes', customer: 'yes', staff: 'yes' },
  'get customer, update customer': { app: 'no', customer: 'own', staff: 'yes' },
  'search customers': { app: 'no', customer: 'no', staff: 'yes' },
  'create service, add step, remove step, service statistics, item create/update/remove': { app: 'no', customer: 'no', staff: 'yes' },
  'create transaction': { app: 'no', customer: 'own-else-403', staff: 'yes' },
  'get transaction, transaction history, list transactions': { app: 'no', customer: 'own', staff: 'yes' },
  'update transaction': { app: 'no', customer: 'own', staff: 'yes' },
  'add to receipt, remove from receipt': { app: 'no', customer: 'own', staff: 'yes' },
  'move transaction': { app: 'no', customer: 'no', staff: 'yes' }
} as const satisfies Record<string, Record<D12Caller, Access>>

/** The table of D-18 (operations added after D-12, with an `admin` column) as this suite was written against it. */
const D18_AS_WRITTEN = {
  'staff create, staff list, staff update': { app: 'no', customer: 'no', staff: 'no', admin: 'yes' },
  'catalogue services, catalogue service update, catalogue step update (D-47)': { app: 'no', customer: 'no', staff: 'yes', admin: 'yes' },
  'report timing (D-58)': { app: 'no', customer: 'no', staff: 'yes', admin: 'yes' },
  'transaction eta (D-59)': { app: 'no', customer: 'own', staff: 'yes', admin: 'yes' },
  'customer messaging (D-65)': { app: 'no', customer: 'own', staff: 'yes', admin: 'yes' }
} as const satisfies Record<string, Record<CallerClass, Access>>

/** The classes of D-12's table; D-12 says admin may call everything staff may. */
type D12Caller = Exclude<CallerClass, 'admin'>

/** Rows in D-12's three columns, each with `admin` as its `staff`. */
function withAdmin(rows: Record<string, Record<D12Caller, Access>>): D12Table {
  return Object.fromEntries(Object.entries(rows).map(([operation, row]) => [operation, { ...row, admin: row.staff }]))
}

/**
 * Our ruling for the tracking links of issue 9, which D-12 does not list: like reading a
 * transaction (customers their own, staff), but not app keys, since a link shows a transaction.
 */
const EXTENSIONS = {
  'get tracking link, renew tracking link': { app: 'no', customer: 'own', staff: 'yes' },
  // The console's board (D-48), an extension: staff and admin only, as moving a transaction is.
  'transaction board': { app: 'no', customer: 'no', staff: 'yes' },
  // Browsing customers for the console, an extension: staff and admin only, as search is.
  'list customers': { app: 'no', customer: 'no', staff: 'yes' }
} as const satisfies Record<string, Record<D12Caller, Access>>

/** D-12 from decisions.md when it is beside the clone, else the copy above. */
const FROM_DECISIONS = readD12()
export const D12_SOURCE: 'decisions.md' | 'copy' = FROM_DECISIONS === undefined ? 'copy' : 'decisions.md'
export const D12_WRITTEN: D12Table = { ...withAdmin(D12_AS_WRITTEN), ...D18_AS_WRITTEN }
export const D12_EXTENSIONS: D12Table = withAdmin(EXTENSIONS)
export const D12 = { ...(FROM_DECISIONS ?? D12_WRITTEN), ...D12_EXTENSIONS } as Record<D12Row, Record<CallerClass, Access>>

export type D12Row = keyof typeof D12_AS_WRITTEN | keyof typeof D18_AS_WRITTEN | keyof typeof EXTENSIONS

/** A customer with Basic credentials. */
export interface Person {
  id: string
  email: string
  password: string
  auth: string
}

/** A concrete request: path (already encoded) and JSON body, if the operation takes one. */
export interface Example {
  path: string
  body?: Record<string, unknown>
}

export interface RouteSpec {
  /** The operationId. */
  id: string
  /** The route as Fastify knows it (`:param` segments). */
  route: string
  /** Names of the path parameters, in order. */
  params: readonly string[]
  /** Whether the operation reads a JSON body (else it ignores any, D-23). */
  body: boolean
  /** Whether a successful call changes state. */
  writes: boolean
  /** Its row of D-12. */
  who: D12Row
  /** What a customer asking about another customer's record is told (`own` rows). */
  notFound?: 'customer_not_found' | 'transaction_not_found'
  /**
   * A request that succeeds for staff, and for a customer when `owner` is that customer. Creates
   * whatever it needs (fresh orders, items, services), so it may be called again and again.
   */
  example(fx: Fixtures, owner: Person): Promise<Example>
}

const PICKUP = 1_793_344_500
const DELIVERY = 1_793_430_900

/** Rows tests need: a service with items, customers with passwords, and fresh records on demand. */
export class Fixtures {
  /** A service of three steps every example uses. */
  readonly service = 'Laundry'
  /** Another service, with its own item. */
  readonly otherService = 'Dry Cleaning'
  itemId = ''
  otherItemId = ''
  /** The customer whose own records the examples touch, and another one. */
  me!: Person
  other!: Person
  private sequence = 0

  constructor(readonly t: TestApp) {}

  async setUp(): Promise<this> {
    await createService(this.t, this.service, [
      { description: 'Picked up', events: ['trak'] },
      { description: 'Washed' },
      { description: 'Delivered' }
    ])
    await createService(this.t, this.otherService, [{ description: 'Received' }, { description: 'Returned' }])
    this.itemId = await createItem(this.t, this.service, 'Shirt', 250)
    this.otherItemId = await createItem(this.t, this.otherService, 'Suit', 1500)
    this.me = await this.person()
    this.other = await this.person()
    return this
  }

  /** A number no other call of this fixture set returned. */
  next(): number {
    return ++this.sequence
  }

  /** A customer with a password (one slow hash). */
  async person(): Promise<Person> {
    const password = `pass-${newSecret().slice(0, 12)}`
    const customer = await createCustomer(this.t, { password, firstName: 'Ada', phone: '5551234567' })
    return { id: customer.id, email: customer.email, password, auth: customer.auth! }
  }

  /** A fresh open order of `owner` on the main service. */
  async order(owner: Person, service = this.service): Promise<string> {
    return (await createOrder(this.t, owner.id, service, { pickup: PICKUP, delivery: DELIVERY })).transaction_id
  }

  /** A fresh order of `owner` with the main item on its receipt. */
  async orderWithItem(owner: Person): Promise<string> {
    const id = await this.order(owner)
    const added = await this.t.post('/v1/receipt/add', { transaction_id: id, item_id: this.itemId })
    assert.equal(added.statusCode, 200, added.body)
    return id
  }

  /** A fresh service of `steps` steps; returns its name. */
  async scratchService(steps = 2): Promise<string> {
    const name = `Scratch ${this.next()}`
    await createService(
      this.t,
      name,
      Array.from({ length: steps }, (_, i) => ({ description: `Step ${i + 1}` }))
    )
    return name
  }

  /** A throwaway staff user made with the admin key (D-15); answers their id. */
  async staffUser(): Promise<string> {
    const email = `throwaway${this.next()}.${Date.now()}@example.com`
    const made = await this.t.post(
      '/v1/staff/create',
      { email, name: 'Throwaway', role: 'staff', password: 'staff-password' },
      { auth: this.t.auth.admin }
    )
    assert.equal(made.statusCode, 200, made.body)
    return (made.json() as { staff_id: string }).staff_id
  }

  /** A live reset token of a throwaway customer (spending it changes only that customer's password). */
  async resetToken(): Promise<string> {
    const customer = await createCustomer(this.t)
    const token = newSecret()
    const now = this.t.clock.now()
    await this.t.database.unitOfWork.run(async ({ db: trx }) => {
      await trx
        .insertInto('password_reset_tokens')
        .values({ token_hash: sha256Hex(token), customer_id: customer.id, created_at: now, expires_at: now + 3_600_000, used_at: null })
        .execute()
    })
    return token
  }
}

const enc = encodeURIComponent

/** Every /v1 operation (the fuzz suite checks that the app has no other). */
export const ROUTES: readonly RouteSpec[] = [
  {
    id: 'signIn',
    route: '/v1/customer/signin',
    params: [],
    body: true,
    writes: false,
    who: 'sign in, request password reset, confirm password reset, create customer',
    example: async (_fx, owner) => ({ path: '/v1/customer/signin', body: { email: owner.email, password: owner.password } })
  },
  {
    id: 'requestPasswordReset',
    route: '/v1/customer/reset_password',
    params: [],
    body: true,
    writes: true,
    who: 'sign in, request password reset, confirm password reset, create customer',
    example: async (fx) => ({ path: '/v1/customer/reset_password', body: { email: `nobody${fx.next()}@example.com` } })
  },
  {
    id: 'confirmPasswordReset',
    route: '/v1/customer/reset_password/confirm',
    params: [],
    body: true,
    writes: true,
    who: 'sign in, request password reset, confirm password reset, create customer',
    example: async (fx) => ({
      path: '/v1/customer/reset_password/confirm',
      body: { token: await fx.resetToken(), password: 'a-new-password-1' }
    })
  },
  {
    id: 'createCustomer',
    route: '/v1/customer/create',
    params: [],
    body: true,
    writes: true,
    who: 'sign in, request password reset, confirm password reset, create customer',
    example: async (fx) => ({ path: '/v1/customer/create', body: { email: `new${fx.next()}.${Date.now()}@example.com`, zip: '10001' } })
  },
  {
    id: 'updateCustomer',
    route: '/v1/customer/update',
    params: [],
    body: true,
    writes: true,
    who: 'get customer, update customer',
    notFound: 'customer_not_found',
    example: async (_fx, owner) => ({ path: '/v1/customer/update', body: { customer: { customer_id: owner.id, preference: 'No starch' } } })
  },
  {
    id: 'searchCustomers',
    route: '/v1/customer/search',
    params: [],
    body: true,
    writes: false,
    who: 'search customers',
    example: async () => ({ path: '/v1/customer/search', body: { query: 'ada' } })
  },
  {
    id: 'listCustomers',
    route: '/v1/customer/list',
    params: [],
    body: true,
    writes: false,
    who: 'list customers',
    example: async () => ({ path: '/v1/customer/list', body: { limit: 5 } })
  },
  {
    id: 'getCustomer',
    route: '/v1/customer/:customer_id',
    params: ['customer_id'],
    body: false,
    writes: false,
    who: 'get customer, update customer',
    notFound: 'customer_not_found',
    example: async (_fx, owner) => ({ path: `/v1/customer/${enc(owner.id)}` })
  },
  {
    id: 'getServiceStep',
    route: '/v1/service/:service_name/:position_number',
    params: ['service_name', 'position_number'],
    body: false,
    writes: false,
    who: 'get service step, get items',
    example: async (fx) => ({ path: `/v1/service/${enc(fx.service)}/2` })
  },
  {
    id: 'createService',
    route: '/v1/service/create',
    params: [],
    body: true,
    writes: true,
    who: 'create service, add step, remove step, service statistics, item create/update/remove',
    example: async (fx) => ({
      path: '/v1/service/create',
      body: { service_name: `Service ${fx.next()}`, description: 'Received', button_title: 'Receive', events: ['email', { event: 'trak' }] }
    })
  },
  {
    id: 'addStep',
    route: '/v1/service/add',
    params: [],
    body: true,
    writes: true,
    who: 'create service, add step, remove step, service statistics, item create/update/remove',
    example: async (fx) => ({
      path: '/v1/service/add',
      body: { service_name: await fx.scratchService(1), description: 'Ironed', position_number: '2', events: ['text'] }
    })
  },
  {
    id: 'removeStep',
    route: '/v1/service/remove',
    params: [],
    body: true,
    writes: true,
    who: 'create service, add step, remove step, service statistics, item create/update/remove',
    example: async (fx) => ({ path: '/v1/service/remove', body: { service_name: await fx.scratchService(2), position: 2 } })
  },
  {
    id: 'getServiceStatistics',
    route: '/v1/service/stats',
    params: [],
    body: false,
    writes: false,
    who: 'create service, add step, remove step, service statistics, item create/update/remove',
    example: async () => ({ path: '/v1/service/stats' })
  },
  {
    id: 'getItems',
    route: '/v1/service/:service_name',
    params: ['service_name'],
    body: false,
    writes: false,
    who: 'get service step, get items',
    example: async (fx) => ({ path: `/v1/service/${enc(fx.service)}` })
  },
  {
    id: 'createItem',
    route: '/v1/item/create',
    params: [],
    body: true,
    writes: true,
    who: 'create service, add step, remove step, service statistics, item create/update/remove',
    example: async (fx) => ({
      path: '/v1/item/create',
      body: { service_name: fx.service, title: `Towel ${fx.next()}`, price: '300', image_url: 'towel.png', group: 'Linen' }
    })
  },
  {
    id: 'updateItem',
    route: '/v1/item/update',
    params: [],
    body: true,
    writes: true,
    who: 'create service, add step, remove step, service statistics, item create/update/remove',
    example: async (fx) => ({ path: '/v1/item/update', body: { item_id: fx.itemId, title: 'Shirt', price: 250 } })
  },
  {
    id: 'removeItem',
    route: '/v1/item/remove',
    params: [],
    body: true,
    writes: true,
    who: 'create service, add step, remove step, service statistics, item create/update/remove',
    example: async (fx) => ({
      path: '/v1/item/remove',
      body: { item_id: await createItem(fx.t, fx.otherService, `Tie ${fx.next()}`, 400) }
    })
  },
  {
    id: 'listCatalogue',
    route: '/v1/catalogue/services',
    params: [],
    body: false,
    writes: false,
    who: 'catalogue services, catalogue service update, catalogue step update (D-47)',
    example: async () => ({ path: '/v1/catalogue/services' })
  },
  {
    id: 'updateCatalogueService',
    route: '/v1/catalogue/service/update',
    params: [],
    body: true,
    writes: true,
    who: 'catalogue services, catalogue service update, catalogue step update (D-47)',
    example: async (fx) => ({
      path: '/v1/catalogue/service/update',
      body: { service_name: await fx.scratchService(1), new_name: `Renamed ${fx.next()}`, image_title: 'renamed' }
    })
  },
  {
    id: 'updateCatalogueStep',
    route: '/v1/catalogue/step/update',
    params: [],
    body: true,
    writes: true,
    who: 'catalogue services, catalogue service update, catalogue step update (D-47)',
    example: async (fx) => ({
      path: '/v1/catalogue/step/update',
      body: {
        service_name: await fx.scratchService(2),
        position_number: '2',
        description: 'Pressed',
        button_title: 'Press',
        events: ['email', { event: 'trak' }],
        expected_minutes: 45
      }
    })
  },
  {
    id: 'createTransaction',
    route: '/v1/transaction/create',
    params: [],
    body: true,
    writes: true,
    who: 'create transaction',
    example: async (fx, owner) => ({
      path: '/v1/transaction/create',
      body: {
        customer_id: owner.id,
        service_name: fx.service,
        pickup_timestamp: PICKUP,
        delivery_timestamp: String(DELIVERY),
        notes: 'Ring twice'
      }
    })
  },
  {
    id: 'updateTransaction',
    route: '/v1/transaction/update',
    params: [],
    body: true,
    writes: true,
    who: 'update transaction',
    notFound: 'transaction_not_found',
    example: async (fx, owner) => ({
      path: '/v1/transaction/update',
      body: { transaction_id: await fx.order(owner), note: 'Leave at the door', delivery_timestamp: DELIVERY + 3600 }
    })
  },
  {
    id: 'listTransactions',
    route: '/v1/transaction/list',
    params: [],
    body: true,
    writes: false,
    who: 'get transaction, transaction history, list transactions',
    example: async (_fx, owner) => ({ path: '/v1/transaction/list', body: { customer_id: owner.id, limit: 5 } })
  },
  {
    id: 'getTransaction',
    route: '/v1/transaction/:transaction_id',
    params: ['transaction_id'],
    body: false,
    writes: false,
    who: 'get transaction, transaction history, list transactions',
    notFound: 'transaction_not_found',
    example: async (fx, owner) => ({ path: `/v1/transaction/${enc(await fx.order(owner))}` })
  },
  {
    id: 'getTransactionHistory',
    route: '/v1/transaction/:transaction_id/history',
    params: ['transaction_id'],
    body: false,
    writes: false,
    who: 'get transaction, transaction history, list transactions',
    notFound: 'transaction_not_found',
    example: async (fx, owner) => ({ path: `/v1/transaction/${enc(await fx.order(owner))}/history` })
  },
  {
    id: 'moveTransaction',
    route: '/v1/transaction/move',
    params: [],
    body: true,
    writes: true,
    who: 'move transaction',
    example: async (fx, owner) => ({
      path: '/v1/transaction/move',
      body: { customer_id: owner.id, transaction_id: await fx.order(owner), position_number: 1 }
    })
  },
  {
    id: 'getTransactionBoard',
    route: '/v1/transaction/board',
    params: [],
    body: true,
    writes: false,
    who: 'transaction board',
    example: async (fx) => ({ path: '/v1/transaction/board', body: { service_name: fx.service, filter: 'ada' } })
  },
  {
    id: 'addToReceipt',
    route: '/v1/receipt/add',
    params: [],
    body: true,
    writes: true,
    who: 'add to receipt, remove from receipt',
    notFound: 'transaction_not_found',
    example: async (fx, owner) => ({
      path: '/v1/receipt/add',
      body: { transaction_id: await fx.order(owner), item_id: fx.itemId, quantity: 2 }
    })
  },
  {
    id: 'removeFromReceipt',
    route: '/v1/receipt/remove',
    params: [],
    body: true,
    writes: true,
    who: 'add to receipt, remove from receipt',
    notFound: 'transaction_not_found',
    example: async (fx, owner) => ({
      path: '/v1/receipt/remove',
      body: { transaction_id: await fx.orderWithItem(owner), item_id: Number(fx.itemId) }
    })
  },
  {
    id: 'getTrackingLink',
    route: '/v1/transaction/:transaction_id/tracking',
    params: ['transaction_id'],
    body: false,
    writes: true,
    who: 'get tracking link, renew tracking link',
    notFound: 'transaction_not_found',
    example: async (fx, owner) => ({ path: `/v1/transaction/${enc(await fx.order(owner))}/tracking` })
  },
  {
    id: 'renewTrackingLink',
    route: '/v1/transaction/:transaction_id/tracking/renew',
    params: ['transaction_id'],
    body: false,
    writes: true,
    who: 'get tracking link, renew tracking link',
    notFound: 'transaction_not_found',
    example: async (fx, owner) => ({ path: `/v1/transaction/${enc(await fx.order(owner))}/tracking/renew` })
  },
  {
    id: 'createStaffUser',
    route: '/v1/staff/create',
    params: [],
    body: true,
    writes: true,
    who: 'staff create, staff list, staff update',
    example: async (fx) => ({
      path: '/v1/staff/create',
      body: { email: `staff${fx.next()}.${Date.now()}@example.com`, name: 'Stella Staff', role: 'staff', password: 'staff-password' }
    })
  },
  {
    id: 'listStaffUsers',
    route: '/v1/staff/list',
    params: [],
    body: false,
    writes: false,
    who: 'staff create, staff list, staff update',
    example: async () => ({ path: '/v1/staff/list' })
  },
  {
    id: 'updateStaffUser',
    route: '/v1/staff/update',
    params: [],
    body: true,
    writes: true,
    who: 'staff create, staff list, staff update',
    example: async (fx) => ({
      path: '/v1/staff/update',
      body: { staff_id: await fx.staffUser(), name: `Renamed ${fx.next()}`, role: 'staff' }
    })
  }
]

/**
 * Every POST route under /v1 the app serves, as Fastify writes them (`:param`), from the OpenAPI
 * document (every operation has a schema; none of the /v1 ones is hidden).
 */
export async function appV1Routes(t: TestApp): Promise<string[]> {
  const response = await t.app.inject({ method: 'GET', url: '/openapi.json' })
  const document = response.json() as { paths: Record<string, Record<string, unknown>> }
  return Object.entries(document.paths)
    .filter(([path, methods]) => path.startsWith('/v1/') && 'post' in methods)
    .map(([path]) => path.replace(/\{([^}]+)\}/g, ':$1'))
    .sort()
}
