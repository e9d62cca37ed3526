import net from 'node:net'

/**
 * A TCP proxy between the app and PostgreSQL, to take the database away without stopping the
 * shared server (issue 8, outage). `cut('down')` is a database that went away: open connections
 * are reset and new ones refused. `cut('partition')` is a network that stops carrying packets:
 * connections stay open but nothing gets through (bytes wait, as in the kernel's buffers) and new
 * ones get no answer. `restore()` brings the network back; in a partition the held bytes then flow.
 */
export class TcpProxy {
  private server: net.Server | undefined
  private readonly pairs = new Set<{ client: net.Socket; upstream: net.Socket | undefined }>()
  private state: 'up' | 'down' | 'partition' = 'up'
  port = 0

  constructor(private readonly target: { host: string; port: number }) {}

  async start(port = 0): Promise<void> {
    const server = net.createServer((client) => this.accept(client))
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(port, '127.0.0.1', () => resolve())
    })
    this.server = server
    this.port = (server.address() as net.AddressInfo).port
  }

  private accept(client: net.Socket): void {
    const pair: { client: net.Socket; upstream: net.Socket | undefined } = { client, upstream: undefined }
    this.pairs.add(pair)
    client.on('error', () => {})
    client.on('close', () => {
      pair.upstream?.destroy()
      this.pairs.delete(pair)
    })
    if (this.state === 'partition') {
      // Accepted by the kernel, but nothing answers: the client waits (its bytes stay unread).
      client.pause()
      return
    }
    this.connect(pair)
  }

  private connect(pair: { client: net.Socket; upstream: net.Socket | undefined }): void {
    const upstream = net.connect(this.target)
    pair.upstream = upstream
    upstream.on('error', () => pair.client.destroy())
    upstream.on('close', () => pair.client.destroy())
    pair.client.pipe(upstream)
    upstream.pipe(pair.client)
    pair.client.resume()
  }

  /** Takes the database away: `down` resets and refuses connections, `partition` silently holds them. */
  async cut(how: 'down' | 'partition'): Promise<void> {
    this.state = how
    if (how === 'down') {
      for (const pair of this.pairs) {
        pair.client.resetAndDestroy()
        pair.upstream?.destroy()
      }
      this.pairs.clear()
      await new Promise<void>((resolve) => this.server!.close(() => resolve()))
      this.server = undefined
      return
    }
    for (const pair of this.pairs) {
      // Unpiped first: a pipe resumes its source on the destination's next drain.
      if (pair.upstream !== undefined) {
        pair.client.unpipe(pair.upstream)
        pair.upstream.unpipe(pair.client)
        pair.upstream.pause()
      }
      pair.client.pause()
    }
  }

  /** Brings the database back on the same port. */
  async restore(): Promise<void> {
    const was = this.state
    this.state = 'up'
    if (was === 'down') {
      await this.start(this.port)
      return
    }
    for (const pair of this.pairs) {
      if (pair.upstream === undefined) this.connect(pair)
      else {
        pair.client.pipe(pair.upstream)
        pair.upstream.pipe(pair.client)
        pair.client.resume()
        pair.upstream.resume()
      }
    }
  }

  async close(): Promise<void> {
    for (const pair of this.pairs) {
      pair.client.destroy()
      pair.upstream?.destroy()
    }
    this.pairs.clear()
    if (this.server !== undefined) await new Promise<void>((resolve) => this.server!.close(() => resolve()))
  }
}
