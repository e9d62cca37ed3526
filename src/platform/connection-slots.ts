import type { IncomingMessage, Server, ServerResponse } from 'node:http'
import type { Socket } from 'node:net'
import { clientAddressKey } from './client-address.js'
import { IdleQueue, QueueLink } from './idle-queue.js'

/** How many connections the server holds open at once, in all and per client address. */
export interface ConnectionLimits {
  /** HTTP_MAX_CONNECTIONS. */
  readonly max: number
  /** HTTP_MAX_CONNECTIONS_PER_ADDRESS: at most `max`. */
  readonly perAddress: number
}

const SLOT = Symbol('connection slot')

type TrackedSocket = Socket & { [SLOT]?: Slot }

/** The open connections of one client address. */
interface Peer {
  readonly key: string
  open: number
  /** Its connections with no request in flight, longest idle first. */
  readonly idle: IdleQueue<Slot>
}

/** One open connection as the limits see it. */
class Slot {
  /** Requests whose headers were read and whose response has not finished. */
  inFlight = 0
  closed = false
  readonly anywhere = new QueueLink<Slot>(this)
  readonly sameAddress = new QueueLink<Slot>(this)

  constructor(
    readonly socket: Socket,
    readonly peer: Peer,
    readonly owner: ConnectionSlots
  ) {}
}

/**
 * Issue 25: the connections the server holds, so that holding many cannot shut others out.
 * - At HTTP_MAX_CONNECTIONS a new connection is let in by closing the connection idle the longest:
 *   one with no request in flight, which an HTTP client reopens when it needs it; a connection that
 *   has sent no request yet is idle since it opened (a slowloris opener goes first). One with a
 *   request in flight (headers read, body still coming, or the response not finished) is never
 *   closed to make room; when every connection has one, the new connection is closed at once.
 * - One client address (by its /64 for IPv6, D-14) holds at most HTTP_MAX_CONNECTIONS_PER_ADDRESS:
 *   past that its own longest-idle connection is closed, or the new one when none is idle. The
 *   address is the socket's peer's, with TRUST_PROXY too: a connection comes from its peer.
 * The idle queues are ordered by when a connection last became idle; a request moves its
 * connection out and back in, allocating nothing.
 */
export class ConnectionSlots {
  private open = 0
  private readonly idle = new IdleQueue<Slot>()
  private readonly peers = new Map<string, Peer>()

  constructor(private readonly limits: ConnectionLimits) {}

  /** Watches the server's connections and requests. */
  attach(server: Server): void {
    server.on('connection', (socket: Socket) => this.admit(socket))
    // Before the app's own listener, so a response ending at once is counted after its start.
    server.prependListener('request', requestStarted)
  }

  /** A new connection: kept (possibly after closing an idle one to make room), or closed at once. */
  admit(socket: Socket): void {
    const address = socket.remoteAddress
    // No address: the peer is already gone.
    if (address === undefined) return void socket.destroy()
    const key = clientAddressKey(address)
    const own = this.peers.get(key)
    if (own !== undefined && own.open >= this.limits.perAddress && !this.evict(own.idle.oldest())) return void socket.destroy()
    if (this.open >= this.limits.max && !this.evict(this.idle.oldest())) return void socket.destroy()
    let peer = this.peers.get(key)
    if (peer === undefined) {
      peer = { key, open: 0, idle: new IdleQueue<Slot>() }
      this.peers.set(key, peer)
    }
    const slot = new Slot(socket, peer, this)
    this.open++
    peer.open++
    this.idle.push(slot.anywhere)
    peer.idle.push(slot.sameAddress)
    ;(socket as TrackedSocket)[SLOT] = slot
    socket.on('close', socketClosed)
  }

  /** A request's headers were read: its connection is busy until its response finishes. */
  started(slot: Slot): void {
    if (slot.closed) return
    if (slot.inFlight++ === 0) {
      this.idle.remove(slot.anywhere)
      slot.peer.idle.remove(slot.sameAddress)
    }
  }

  /** A response finished: with none left in flight, the connection is idle from now, last in line. */
  ended(slot: Slot): void {
    if (slot.closed || slot.inFlight === 0) return
    if (--slot.inFlight === 0) {
      this.idle.push(slot.anywhere)
      slot.peer.idle.push(slot.sameAddress)
    }
  }

  /** A connection closed (by either side, or evicted here): its place is free. */
  closed(slot: Slot): void {
    if (slot.closed) return
    slot.closed = true
    this.idle.remove(slot.anywhere)
    slot.peer.idle.remove(slot.sameAddress)
    this.open--
    if (--slot.peer.open === 0) this.peers.delete(slot.peer.key)
  }

  /** Closes an idle connection to make room; false when there is none. */
  private evict(slot: Slot | undefined): boolean {
    if (slot === undefined) return false
    this.closed(slot)
    slot.socket.destroy()
    return true
  }
}

function requestStarted(request: IncomingMessage, response: ServerResponse): void {
  const slot = (request.socket as TrackedSocket)[SLOT]
  if (slot === undefined) return
  slot.owner.started(slot)
  response.on('finish', responseFinished)
}

// Shared listeners (`this` is the emitter), so a request adds no closure.
function responseFinished(this: ServerResponse): void {
  const slot = (this.req.socket as TrackedSocket | null)?.[SLOT]
  if (slot !== undefined) slot.owner.ended(slot)
}

function socketClosed(this: TrackedSocket): void {
  const slot = this[SLOT]
  if (slot !== undefined) slot.owner.closed(slot)
}
