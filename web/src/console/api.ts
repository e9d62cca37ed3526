import type {
  BoardResponse,
  CatalogueService,
  CatalogueServicesResponse,
  CreateTransactionResponse,
  CustomerChanges,
  CustomerCreated,
  CustomerListResponse,
  CustomerRecord,
  HistoryResponse,
  ItemResponse,
  ItemsResponse,
  ListResponse,
  SearchResponse,
  StatsResponse,
  TrackingLink,
  TransactionView,
  UpdatedTransaction
} from '../shared/api-types'
import { postJson } from '../shared/http'
import type { StaffListResponse, StaffView } from '../shared/staff-types'

/** A fresh Idempotency-Key (D-52); getRandomValues works outside secure contexts too. */
export function newIdempotencyKey(): string {
  const bytes = crypto.getRandomValues(new Uint8Array(16))
  return `console-${Array.from(bytes, (b) => b.toString(16).padStart(2, '0')).join('')}`
}

const segment = encodeURIComponent

/**
 * The public /v1 API as the console calls it: with the session cookie and this tab's CSRF token, no
 * Authorization header (D-16); every write with a fresh Idempotency-Key so a retry never acts twice.
 */
export class Api {
  constructor(private readonly csrfToken: string) {}

  private read<T>(path: string, body?: unknown): Promise<T> {
    return postJson<T>(path, body, { 'x-csrf-token': this.csrfToken }, 'same-origin')
  }

  private write<T>(path: string, body?: unknown): Promise<T> {
    return postJson<T>(path, body, { 'x-csrf-token': this.csrfToken, 'idempotency-key': newIdempotencyKey() }, 'same-origin')
  }

  stats = () => this.read<StatsResponse>('/v1/service/stats')
  items = (service: string) => this.read<ItemsResponse>(`/v1/service/${segment(service)}`)
  createService = (body: {
    service_name: string
    description: string
    button_title: string
    events: string[]
    image_title?: string
    expected_minutes?: number | null
  }) => this.write<{ message: string }>('/v1/service/create', body)
  addStep = (body: {
    service_name: string
    description: string
    button_title: string
    events: string[]
    position_number?: number
    expected_minutes?: number | null
  }) => this.write<{ service_name: string; description: string; position: string }>('/v1/service/add', body)
  removeStep = (service: string, position: number) =>
    this.write<{ message: string }>('/v1/service/remove', { service_name: service, position_number: position })
  createItem = (body: { service_name: string; title: string; price: number; group?: string; image_url?: string }) =>
    this.write<ItemResponse>('/v1/item/create', body)
  updateItem = (body: { item_id: string; title?: string; price?: number; group?: string }) =>
    this.write<ItemResponse>('/v1/item/update', body)
  removeItem = (itemId: string) => this.write<ItemResponse>('/v1/item/remove', { item_id: itemId })
  /** D-47: every service with all its steps, in one call. */
  catalogue = () => this.read<CatalogueServicesResponse>('/v1/catalogue/services')
  updateService = (body: { service_name: string; new_name?: string; image_title?: string }) =>
    this.write<CatalogueService>('/v1/catalogue/service/update', body)
  updateStep = (body: {
    service_name: string
    position_number: number
    description?: string
    button_title?: string
    events?: string[]
    expected_minutes?: number | null
  }) => this.write<CatalogueService>('/v1/catalogue/step/update', body)

  search = (query: string) => this.read<SearchResponse>('/v1/customer/search', { query, limit: 10 })
  customer = (id: string) => this.read<CustomerRecord>(`/v1/customer/${segment(id)}`)
  createCustomer = (email: string, zip: string) => this.write<CustomerCreated>('/v1/customer/create', { email, zip })
  /** D-32, D-34: only the fields sent change; a card goes with all five fields. */
  updateCustomer = (customer: CustomerChanges) => this.write<CustomerRecord>('/v1/customer/update', { customer })
  /** Every customer, a page at a time (keyset cursor). */
  customers = (page: { limit?: number; cursor?: string }) => this.read<CustomerListResponse>('/v1/customer/list', page)

  /** D-15 (admins only): staff accounts. */
  staff = () => this.read<StaffListResponse>('/v1/staff/list')
  /** Without `password` the server e-mails an invitation with a set-password link. */
  createStaff = (body: { email: string; name: string; role: 'admin' | 'staff' }) => this.write<StaffView>('/v1/staff/create', body)
  updateStaff = (body: { staff_id: string; name?: string; role?: 'admin' | 'staff'; status?: 'active' | 'disabled' }) =>
    this.write<StaffView>('/v1/staff/update', body)

  list = (filter: {
    customer_id?: string
    service_name?: string
    position_number?: number
    status?: 'open' | 'closed'
    limit?: number
    cursor?: string
  }) => this.read<ListResponse>('/v1/transaction/list', filter)
  transaction = (id: string) => this.read<TransactionView>(`/v1/transaction/${segment(id)}`)
  history = (id: string) => this.read<HistoryResponse>(`/v1/transaction/${segment(id)}/history`)
  createTransaction = (body: {
    customer_id: string
    service_name: string
    pickup_timestamp: number
    delivery_timestamp: number
    notes: string
  }) => this.write<CreateTransactionResponse>('/v1/transaction/create', body)
  /** D-53: only the fields sent change; a new service_name restarts the order at step 1. */
  updateTransaction = (body: {
    transaction_id: string
    service_name?: string
    pickup_timestamp?: number
    delivery_timestamp?: number
    note?: string
    status?: 'open' | 'closed'
  }) => this.write<UpdatedTransaction>('/v1/transaction/update', body)
  /** D-55: with the step the board showed, so a second tap (or a colleague's) cannot move it twice. */
  move = (order: { customer_id: string; transaction_id: string; position_number: number }) =>
    this.write<TransactionView>('/v1/transaction/move', order)
  board = (service: string, filter = '') =>
    this.read<BoardResponse>('/v1/transaction/board', { service_name: service, ...(filter === '' ? {} : { filter }) })
  /** D-54: `quantity` (1 to 999) of the item at once. */
  addToReceipt = (id: string, itemId: string, quantity = 1) =>
    this.write<TransactionView>('/v1/receipt/add', { transaction_id: id, item_id: itemId, quantity })
  removeFromReceipt = (id: string, itemId: string) =>
    this.write<TransactionView>('/v1/receipt/remove', { transaction_id: id, item_id: itemId })
  trackingLink = (id: string) => this.read<TrackingLink>(`/v1/transaction/${segment(id)}/tracking`)
  renewTrackingLink = (id: string) => this.write<TrackingLink>(`/v1/transaction/${segment(id)}/tracking/renew`)
}
