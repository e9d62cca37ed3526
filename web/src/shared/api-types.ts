// The wire shapes the pages read, as the API answers them (api-spec.md, decisions.md). Kept in
// step with the server's TypeBox schemas by test/e2e/support/api-contract.ts, type-checked by npm test.

/** A problem document (D-20). */
export interface ProblemDocument {
  type: string
  title: string
  status: number
  detail: string
  code: string
  errors?: Array<{ field: string; message: string }>
}

export interface ServiceView {
  service_id: string
  service_name: string
  position: { position_number: string; position_description: string; button_title: string; events: Array<{ event: string }> }
  progress_bar: { total_steps: number; percentage: number }
}

/** One statistics entry: the first of a service has every field, later ones only four (D-44). */
export interface StatsEntry {
  service_name?: string
  image_title?: string
  shade?: string
  position_number?: string
  description?: string
  position_count?: number
  total_orders?: number
}

export interface StatsResponse {
  service_stats: Array<{ service: StatsEntry[] }>
}

export interface ReceiptLine {
  receipt_id: string | null
  item_id: string | null
  title: string | null
  image_url: string | null
  price: string
  quantity: string | null
}

export interface TransactionView {
  transaction_id: string
  transaction_code: string
  customer_id: string
  pickup_date_time: string
  pickup_date: string
  pickup_time: string
  delivery_date_time: string
  delivery_date: string
  delivery_time: string
  note: string
  service: ServiceView
  status: string
  receipt: ReceiptLine[]
  total: string
}

export interface ListResponse {
  transactions: TransactionView[]
  next_cursor: string | null
}

/** One card of the board: an open order at a step (POST /v1/transaction/board). */
export interface BoardOrder {
  transaction_id: string
  transaction_code: string
  customer_id: string
  customer_name: string
  pickup_date_time: string
  pickup_at: string
  entered_at: string
  overdue: boolean
  note: string
  total: string
}

/** One column of the board: a step with its open orders, overdue first, then by pickup. */
export interface BoardStep {
  position_number: string
  description: string
  button_title: string
  expected_minutes: number | null
  open_count: number
  orders: BoardOrder[]
}

export interface BoardResponse {
  service_name: string
  steps: BoardStep[]
  closed_count: number
}

/** The update answer: the short view (D-53), with `transaction_id`. */
export interface UpdatedTransaction {
  transaction_id: string
  service_name: string
  pickup_date: string
  pickup_time: string
  delivery_date: string
  delivery_time: string
  note: string
  status: string
}

export interface HistoryEntry {
  at: string
  type: string
  position_number: string
  description: string
  actor: string
  /** Who did it by name (D-17): the staff member or API key; "" for customers and the system. */
  by: string
}

export interface HistoryResponse {
  transaction_id: string
  history: HistoryEntry[]
}

export interface CreateTransactionResponse {
  transaction_id: string
  transaction_code: number
  service_name: string
  pickup_date: string
  pickup_time: string
  delivery_date: string
  delivery_time: string
  note: string
  status: string
  total: string
}

export interface Item {
  item_id: string
  title: string
  image_url: string
  price: string
}

export interface ItemsResponse {
  item: { item_count: number; service_name: string }
  item_group: Array<{ group: string; item: Item[] }>
}

/** The answer of item create, update and remove: exactly the spec's Item (D-45). */
export type ItemResponse = Item

export interface SearchResponse {
  customer: Array<{ customer_id: string; customer_name: string; customer_email: string }>
}

export interface CustomerRecord {
  customer_id: string
  first_name: string
  last_name: string
  username: string
  email: string
  phone: string
  preference: string
  address: { street: string; apartment: string; city: string; state: string; zipcode: string }
  /** Whether a card is saved (D-34); nothing else of a card is ever answered. */
  card_on_file?: boolean
}

export interface CustomerCreated {
  customer_id: string
  first_name: string
  last_name: string
  email: string
  phone: string
  payment_customer_id: string
  address: { street_one: string; street_two: string; city: string; state: string; zip: string }
}

export interface TrackingLink {
  tracking_url: string
}

/** One customer of POST /v1/customer/list, browsed in pages. */
export interface CustomerListEntry {
  customer_id: string
  customer_name: string
  customer_email: string
  phone: string
}

export interface CustomerListResponse {
  customers: CustomerListEntry[]
  next_cursor: string | null
}

/** The `customer` object of POST /v1/customer/update: left-out fields stay, "" clears (D-32, D-34). */
export interface CustomerChanges {
  customer_id: string
  customer_name?: string
  email?: string
  phone?: string
  preference?: string
  address?: { street?: string; apartment?: string; zip?: string }
  creditcard?: { cc_name: string; cc_number: string; cc_expiration: string; cc_cvv: string; cc_zip: string }
}

/** What the public tracking page reads: POST /track/{token}/status. */
export interface TrackingStatus {
  service_name: string
  position: { position_number: string; position_description: string }
  progress_bar: { total_steps: number; percentage: number }
  history: Array<{ at: string; type: string; position_number: string; description: string }>
}

/** A step as the catalogue edits it (D-47, D-48). */
export interface CatalogueStep {
  position_number: string
  description: string
  button_title: string
  events: Array<{ event: string }>
  expected_minutes: number | null
}

/** A service with all its steps (D-47): an element of POST /v1/catalogue/services. */
export interface CatalogueService {
  service_id: string
  service_name: string
  image_title: string
  created_at: string
  steps: CatalogueStep[]
}

export interface CatalogueServicesResponse {
  services: CatalogueService[]
}
