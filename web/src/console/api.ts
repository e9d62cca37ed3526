import type {
  CreateTransactionResponse,
  CustomerCreated,
  CustomerRecord,
  HistoryResponse,
  ItemResponse,
  ItemsResponse,
  ListResponse,
  SearchResponse,
  ServiceView,
  StatsResponse,
  TrackingLink,
  TransactionView
} from '../shared/api-types'
import { postJson } from '../shared/http'

/** A fresh Idempotency-Key (D-52); getRandomValues works outside secure contexts too. */
function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`
}

function basicHeader(key: string): string {
  const bytes = new TextEncoder().encode(key)
  let binary = ''
  for (const byte of bytes) binary += String.fromCharCode(byte)
  return `Basic ${btoa(binary)}`
}

const segment = encodeURIComponent

/**
 * The public /v1 API as the console calls it: every call with `Authorization: Basic` of the staff
 * key (D-10), every write with a fresh Idempotency-Key so a retried request never acts twice.
 */
export class Api {
  private readonly authorization: string

  constructor(key: string) {
    this.authorization = basicHeader(key)
  }

  private read<T>(path: string, body?: unknown): Promise<T> {
    return postJson<T>(path, body, { authorization: this.authorization })
  }

  private write<T>(path: string, body?: unknown): Promise<T> {
    return postJson<T>(path, body, { authorization: this.authorization, 'idempotency-key': newIdempotencyKey() })
  }

  stats = () => this.read<StatsResponse>('/v1/service/stats')
  step = (service: string, position: number) => this.read<ServiceView>(`/v1/service/${segment(service)}/${position}`)
  items = (service: string) => this.read<ItemsResponse>(`/v1/service/${segment(service)}`)
  createService = (body: { service_name: string; description: string; button_title: string; events: string[]; image_title?: string }) =>
    this.write<{ message: string }>('/v1/service/create', body)
  addStep = (body: { service_name: string; description: string; button_title: string; events: string[]; position_number?: number }) =>
    this.write<{ service_name: string; description: string; position: string }>('/v1/service/add', body)
  removeStep = (service: string, position: number) =>
    this.write<{ message: string }>('/v1/service/remove', { service_name: service, position_number: position })
  createItem = (body: { service_name: string; title: string; price: number; group?: string; image_url?: string }) =>
    this.write<ItemResponse>('/v1/item/create', body)
  updateItem = (body: { item_id: string; title?: string; price?: number; group?: string }) =>
    this.write<ItemResponse>('/v1/item/update', body)
  removeItem = (itemId: string) => this.write<ItemResponse>('/v1/item/remove', { item_id: itemId })

  search = (query: string) => this.read<SearchResponse>('/v1/customer/search', { query, limit: 10 })
  customer = (id: string) => this.read<CustomerRecord>(`/v1/customer/${segment(id)}`)
  createCustomer = (email: string, zip: string) => this.write<CustomerCreated>('/v1/customer/create', { email, zip })
  renameCustomer = (id: string, name: string) =>
    this.write<CustomerRecord>('/v1/customer/update', { customer: { customer_id: id, customer_name: name } })

  list = (filter: { customer_id?: string; service_name?: string; status?: 'open' | 'closed'; limit?: number; cursor?: string }) =>
    this.read<ListResponse>('/v1/transaction/list', filter)
  transaction = (id: string) => this.read<TransactionView>(`/v1/transaction/${segment(id)}`)
  history = (id: string) => this.read<HistoryResponse>(`/v1/transaction/${segment(id)}/history`)
  createTransaction = (body: {
    customer_id: string
    service_name: string
    pickup_timestamp: number
    delivery_timestamp: number
    notes: string
  }) => this.write<CreateTransactionResponse>('/v1/transaction/create', body)
  updateNote = (id: string, note: string) => this.write<{ note: string }>('/v1/transaction/update', { transaction_id: id, note })
  /** D-55: with the step the board showed, so a second tap (or a colleague's) cannot move it twice. */
  move = (order: TransactionView) =>
    this.write<TransactionView>('/v1/transaction/move', {
      customer_id: order.customer_id,
      transaction_id: order.transaction_id,
      position_number: Number(order.service.position.position_number)
    })
  addToReceipt = (id: string, itemId: string) => this.write<TransactionView>('/v1/receipt/add', { transaction_id: id, item_id: itemId })
  removeFromReceipt = (id: string, itemId: string) =>
    this.write<TransactionView>('/v1/receipt/remove', { transaction_id: id, item_id: itemId })
  trackingLink = (id: string) => this.read<TrackingLink>(`/v1/transaction/${segment(id)}/tracking`)
  renewTrackingLink = (id: string) => this.write<TrackingLink>(`/v1/transaction/${segment(id)}/tracking/renew`)

  /** Every open order of a service, following next_cursor (at most `max`). */
  async openOrders(service: string, max = 500): Promise<TransactionView[]> {
    const orders: TransactionView[] = []
    let cursor: string | undefined
    do {
      const page = await this.list({ service_name: service, status: 'open', limit: 100, ...(cursor === undefined ? {} : { cursor }) })
      orders.push(...page.transactions)
      cursor = page.next_cursor ?? undefined
    } while (cursor !== undefined && orders.length < max)
    return orders
  }
}
