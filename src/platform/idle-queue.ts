/** A place in an `IdleQueue`: one per connection and queue, made when the connection opens. */
export class QueueLink<T> {
  prev: QueueLink<T> | null = null
  next: QueueLink<T> | null = null
  queued = false
  constructor(readonly value: T) {}
}

/**
 * Connections with no request in flight, longest idle first (connection-slots.ts). Intrusive, so
 * taking a connection out when a request starts and back in when it ends allocates nothing.
 */
export class IdleQueue<T> {
  private head: QueueLink<T> | null = null
  private tail: QueueLink<T> | null = null

  /** The value idle the longest, if any. */
  oldest(): T | undefined {
    return this.head?.value
  }

  /** Puts a link at the end (it became idle just now); a link already queued stays where it is. */
  push(link: QueueLink<T>): void {
    if (link.queued) return
    link.queued = true
    link.prev = this.tail
    link.next = null
    if (this.tail === null) this.head = link
    else this.tail.next = link
    this.tail = link
  }

  /** Takes a link out; one not queued is left alone. */
  remove(link: QueueLink<T>): void {
    if (!link.queued) return
    link.queued = false
    if (link.prev === null) this.head = link.next
    else link.prev.next = link.next
    if (link.next === null) this.tail = link.prev
    else link.next.prev = link.prev
    link.prev = null
    link.next = null
  }
}
