import { randomBytes } from 'node:crypto'

/**
 * Issue 25: concurrent clients writing and reading against a running API while its database is
 * faulted, recording every write acknowledged (200) so it can be looked for afterwards. Shared by
 * test/hardening/postgres-restart.test.ts and `npm run chaos` (bench/chaos.ts).
 */

const PICKUP = 1_793_344_500
// A request unanswered this long hangs: it counts as an unexpected answer, not a slow one.
const REQUEST_TIMEOUT_MS = 30_000

/** One answer the load got: when it was sent and received (performance.now()), and what it was. */
export interface LoadEvent {
  sent: number
  received: number
  write: boolean
  kind: 'ok' | 'unavailable' | 'unexpected'
}

/** What the load works on: made once through the API before it starts. */
export interface Fixture {
  customerId: string
  itemId: string
}

interface Answer {
  status: number
  json: any
  contentType: string | null
  retryAfter: string | null
}

async function call(url: string, authorization: string, path: string, body?: unknown): Promise<Answer> {
  const response = await fetch(`${url}${path}`, {
    method: 'POST',
    headers: { authorization, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
    signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS)
  })
  const text = await response.text()
  let json: unknown = null
  try {
    json = JSON.parse(text)
  } catch {
    json = text
  }
  return {
    status: response.status,
    json,
    contentType: response.headers.get('content-type'),
    retryAfter: response.headers.get('retry-after')
  }
}

/** A service, an item and a customer to order for; the database must be reachable. */
export async function prepareFixture(url: string, authorization: string): Promise<Fixture> {
  const expectOk = (answer: Answer, what: string) => {
    if (answer.status !== 200) throw new Error(`${what}: ${answer.status} ${JSON.stringify(answer.json)}`)
    return answer.json
  }
  expectOk(await call(url, authorization, '/v1/service/create', { service_name: 'Laundry', description: 'Picked up' }), 'service')
  const item = expectOk(await call(url, authorization, '/v1/item/create', { service_name: 'Laundry', title: 'Shirt', price: 250 }), 'item')
  const customer = expectOk(
    await call(url, authorization, '/v1/customer/create', { email: `chaos.${randomBytes(4).toString('hex')}@example.com`, zip: '10001' }),
    'customer'
  )
  return { customerId: customer.customer_id, itemId: item.item_id }
}

/** Whether an answer is the 503 the API owes while its database is away (D-20, D-21). */
function isUnavailable(answer: Answer): boolean {
  return (
    answer.status === 503 &&
    answer.contentType === 'application/problem+json; charset=utf-8' &&
    answer.retryAfter === '5' &&
    answer.json?.code === 'unavailable' &&
    answer.json?.status === 503
  )
}

/**
 * `clients` loops, each cycling through writes (create a transaction, add to its own order's
 * receipt, create a customer) and reads (a transaction, a customer, statistics) until `stop()`.
 * Every answer must be 200 or the 503 `unavailable` problem with Retry-After; anything else
 * (another status, a broken connection, a hang) is listed in `unexpected`.
 */
export class MixedLoad {
  readonly events: LoadEvent[] = []
  readonly unexpected: string[] = []
  /** Transactions acknowledged, with the note each was created with. */
  readonly orders = new Map<string, string>()
  readonly customers = new Map<string, string>()
  /** Per client's own order: receipt adds acknowledged, and adds answered 503 (they may have committed). */
  readonly receipts = new Map<string, { acked: number; uncertain: number }>()
  private running = true
  private loops: Promise<void> = Promise.resolve()
  private readonly tag = randomBytes(3).toString('hex')

  constructor(
    private readonly url: string,
    private readonly authorization: string,
    private readonly fixture: Fixture
  ) {}

  /** Starts the clients; each first creates the order it adds to (the database must be reachable). */
  async start(clients: number): Promise<void> {
    const own = await Promise.all(
      Array.from({ length: clients }, async () => {
        const created = await this.send('/v1/transaction/create', this.orderBody('own order'))
        if (created.status !== 200) throw new Error(`could not create a client's order: ${created.status}`)
        this.receipts.set(created.json.transaction_id, { acked: 0, uncertain: 0 })
        return created.json.transaction_id as string
      })
    )
    this.loops = Promise.all(own.map((order, client) => this.loop(client, order))).then(() => undefined)
  }

  /** Stops the clients and waits for their requests in flight. */
  async stop(): Promise<void> {
    this.running = false
    await this.loops
  }

  /** Acknowledged writes sent after `since` (performance.now()). */
  writesSince(since: number): number {
    return this.events.filter((event) => event.write && event.kind === 'ok' && event.sent >= since).length
  }

  /** 503 answers received after `since`. */
  unavailableSince(since: number): number {
    return this.events.filter((event) => event.kind === 'unavailable' && event.received >= since).length
  }

  private orderBody(note: string) {
    return {
      customer_id: this.fixture.customerId,
      service_name: 'Laundry',
      pickup_timestamp: PICKUP,
      delivery_timestamp: PICKUP + 3600,
      notes: note
    }
  }

  private send(path: string, body?: unknown): Promise<Answer> {
    return call(this.url, this.authorization, path, body)
  }

  private async loop(client: number, order: string): Promise<void> {
    const receipt = this.receipts.get(order)!
    let lastOrder = order
    for (let i = 0; this.running; i++) {
      const step = i % 6
      const sent = performance.now()
      const write = step === 0 || step === 1 || step === 3
      let answer: Answer
      try {
        if (step === 0) answer = await this.send('/v1/transaction/create', this.orderBody(`${this.tag} client ${client} write ${i}`))
        else if (step === 1) answer = await this.send('/v1/receipt/add', { transaction_id: order, item_id: this.fixture.itemId })
        else if (step === 2) answer = await this.send(`/v1/transaction/${lastOrder}`)
        else if (step === 3)
          answer = await this.send('/v1/customer/create', { email: `c${client}.${i}.${this.tag}@example.com`, zip: '10001' })
        else if (step === 4) answer = await this.send(`/v1/customer/${this.fixture.customerId}`)
        else answer = await this.send('/v1/service/stats')
      } catch (error) {
        // The API closed the connection or never answered: with the process gone, every client stops.
        this.unexpected.push(`client ${client}, step ${step}: ${(error as Error).message}`)
        this.events.push({ sent, received: performance.now(), write, kind: 'unexpected' })
        await new Promise((resolve) => setTimeout(resolve, 200))
        continue
      }
      const kind = answer.status === 200 ? 'ok' : isUnavailable(answer) ? 'unavailable' : 'unexpected'
      this.events.push({ sent, received: performance.now(), write, kind })
      if (kind === 'unexpected')
        this.unexpected.push(
          `client ${client}, step ${step}: ${answer.status} ${answer.contentType} retry-after=${answer.retryAfter} ${JSON.stringify(answer.json).slice(0, 300)}`
        )
      if (step === 1 && kind !== 'ok') receipt.uncertain++
      if (kind !== 'ok') continue
      if (step === 0) {
        this.orders.set(answer.json.transaction_id, `${this.tag} client ${client} write ${i}`)
        lastOrder = answer.json.transaction_id
      } else if (step === 1) receipt.acked++
      else if (step === 3) this.customers.set(answer.json.customer_id, `c${client}.${i}.${this.tag}@example.com`)
    }
  }
}

/**
 * Reads back every write the load had acknowledged; returns one line per write missing or
 * different (none when nothing acknowledged was lost). The database must be reachable.
 */
export async function lostWrites(url: string, authorization: string, load: MixedLoad, concurrency = 8): Promise<string[]> {
  const lost: string[] = []
  const checks: Array<() => Promise<void>> = []
  for (const [id, note] of load.orders) {
    checks.push(async () => {
      const read = await call(url, authorization, `/v1/transaction/${id}`)
      if (read.status !== 200 || read.json.note !== note)
        lost.push(`transaction ${id}: ${read.status} ${JSON.stringify(read.json).slice(0, 200)}`)
    })
  }
  for (const [id, email] of load.customers) {
    checks.push(async () => {
      const read = await call(url, authorization, `/v1/customer/${id}`)
      if (read.status !== 200 || read.json.email !== email)
        lost.push(`customer ${id}: ${read.status} ${JSON.stringify(read.json).slice(0, 200)}`)
    })
  }
  for (const [id, counts] of load.receipts) {
    checks.push(async () => {
      const read = await call(url, authorization, `/v1/transaction/${id}`)
      const quantity = Number(read.json?.receipt?.[0]?.quantity ?? 0)
      // Each acknowledged add is there; one answered 503 may or may not have committed.
      if (read.status !== 200 || quantity < counts.acked || quantity > counts.acked + counts.uncertain) {
        lost.push(`receipt of ${id}: quantity ${quantity}, ${counts.acked} acknowledged, ${counts.uncertain} answered 503`)
      }
    })
  }
  let next = 0
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < checks.length) await checks[next++]!()
    })
  )
  return lost
}

/** GET `path` on the API: its status, or 0 when nothing answered. */
export async function probe(url: string, path: string): Promise<number> {
  try {
    const response = await fetch(`${url}${path}`, { signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS) })
    await response.arrayBuffer()
    return response.status
  } catch {
    return 0
  }
}

/** Polls until `condition` holds, every 100 ms; fails naming `what` after `timeoutMs`. */
export async function waitUntil(what: string, condition: () => boolean | Promise<boolean>, timeoutMs = 60_000): Promise<void> {
  const deadline = Date.now() + timeoutMs
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error(`${what}: not within ${timeoutMs / 1000} s`)
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
}
