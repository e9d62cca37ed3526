import assert from 'node:assert/strict'
import net from 'node:net'

/** A raw connection that records what the server sends and when it closes. */
export class RawClient {
  readonly socket: net.Socket
  received = ''
  readonly closed: Promise<number>
  readonly connected: Promise<void>
  private readonly opened = performance.now()

  /** `localAddress`: another loopback address (127.0.0.2, …) to connect from, as another client would. */
  constructor(port: number, localAddress?: string) {
    this.socket = net.connect({ port, host: '127.0.0.1', ...(localAddress === undefined ? {} : { localAddress }) })
    this.socket.setEncoding('utf8')
    this.socket.on('data', (chunk: string) => (this.received += chunk))
    this.socket.on('error', () => {})
    this.connected = new Promise((resolve) => this.socket.once('connect', () => resolve()))
    this.closed = new Promise((resolve) => this.socket.once('close', () => resolve(performance.now() - this.opened)))
  }

  write(text: string): void {
    if (!this.socket.destroyed) this.socket.write(text)
  }

  /** Resolves with ms from connecting to closing, or rejects when still open after `ms`. */
  async closedWithin(ms: number): Promise<number> {
    let timer: NodeJS.Timeout | undefined
    const late = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`still open after ${ms} ms; received ${JSON.stringify(this.received.slice(0, 200))}`)), ms)
    })
    try {
      return await Promise.race([this.closed, late])
    } finally {
      clearTimeout(timer)
    }
  }

  /** The status, headers and parsed body of the one response received. */
  response(): { status: number; headers: Record<string, string>; body: any } {
    const [head = '', body = ''] = this.received.split('\r\n\r\n')
    const [statusLine = '', ...lines] = head.split('\r\n')
    const headers = Object.fromEntries(
      lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()])
    )
    return { status: Number(statusLine.split(' ')[1]), headers, body: body === '' ? undefined : JSON.parse(body) }
  }
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** Asserts a problem document with this status and code arrived on the raw connection. */
export function assertProblem(client: RawClient, status: number, code: string, requestId: RegExp | string = UUID): void {
  const response = client.response()
  assert.equal(response.status, status, client.received.slice(0, 300))
  assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8')
  assert.equal(response.headers['x-content-type-options'], 'nosniff')
  // D-73: every response, these too, carries a request id (a new one when the headers were not read).
  if (typeof requestId === 'string') assert.equal(response.headers['x-request-id'], requestId)
  else assert.match(String(response.headers['x-request-id']), requestId)
  assert.equal(response.body.code, code)
  assert.equal(response.body.status, status)
  assert.equal(response.body.type, `/problems/${code}`)
}
