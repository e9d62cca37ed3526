import { createRequire } from 'node:module'
import { Worker } from 'node:worker_threads'
import type BetterSqlite3 from 'better-sqlite3'

/**
 * The worker's code, CommonJS, run with `eval` so that it is the same under tsx (tests) and from
 * dist: a worker file would be `.ts` in one and `.js` in the other, and Node 20 does not hand tsx
 * to a worker. It opens its own connection and runs a PASSIVE checkpoint for each message: one that
 * copies what the WAL holds into the database file without taking the write lock, so the writer
 * goes on committing meanwhile. The answer is SQLite's [busy, frames in the WAL, frames copied].
 */
const WORKER_SOURCE = `
const { parentPort, workerData } = require('node:worker_threads')
const Database = require(workerData.driver)
const db = new Database(workerData.file, { fileMustExist: true })
db.pragma('busy_timeout = 1000')
db.pragma('synchronous = ' + workerData.synchronous)
const checkpoint = db.prepare('pragma wal_checkpoint(PASSIVE)').raw(true)
parentPort.on('message', () => {
  try {
    parentPort.postMessage({ result: checkpoint.get() })
  } catch (error) {
    parentPort.postMessage({ error: String(error && error.code || 'checkpoint failed') })
  }
})
`

export interface CheckpointCounts {
  /** Checkpoints run by the worker. */
  runs: number
  /** Checkpoints that found another one running (another process's, or the writer's own). */
  busy: number
  /** Frames the WAL held at the last checkpoint's end (it starts over once all are copied). */
  walFrames: number
  /** Checkpoints that failed; SQLite's own on the writer still bound the WAL. */
  failures: number
}

/**
 * Keeps SQLite's WAL checkpoints off the event loop: the writer would otherwise copy and sync pages
 * in the COMMIT that takes the WAL past 1,000 frames, serving no request meanwhile. A worker thread
 * with its own connection checkpoints shortly after commits; the writer's own automatic checkpoint
 * stays only as a bound on the WAL should the worker fall behind (`WRITER_BOUND`).
 */
export class SqliteCheckpointer {
  /**
   * The writer's `wal_autocheckpoint` while the worker runs: 16,000 frames, about 64 MiB. Under a
   * steady stream of writes the WAL only starts over when a commit finds all of it copied, which
   * the worker, running beside the writer, seldom leaves it; at this bound the writer checkpoints
   * the little the worker has not copied yet, and the WAL starts over. (4,000 was no faster.)
   */
  static readonly WRITER_BOUND = 16_000
  /** SQLite's default, back on the writer if the worker stops. */
  static readonly WRITER_DEFAULT = 1_000

  readonly counts: CheckpointCounts = { runs: 0, busy: 0, walFrames: 0, failures: 0 }
  private readonly worker: Worker
  private running = false
  private wanted = false
  private timer: NodeJS.Timeout | undefined
  private exited = false
  private lastStart = 0

  /**
   * @param intervalMs at least this long between the starts of two checkpoints: a page rewritten
   *   by many commits in that time is copied once, and the files are synced once.
   */
  constructor(
    private readonly writer: BetterSqlite3.Database,
    synchronous: 'FULL' | 'NORMAL',
    private readonly intervalMs = 50
  ) {
    const driver = createRequire(import.meta.url).resolve('better-sqlite3')
    this.worker = new Worker(WORKER_SOURCE, { eval: true, workerData: { driver, file: writer.name, synchronous } })
    // Checkpoints are an optimisation: the process never waits for this thread to exit.
    this.worker.unref()
    this.worker.on('message', (message: { result?: [number, number, number]; error?: string }) => this.finished(message))
    this.worker.on('error', () => this.counts.failures++)
    this.worker.on('exit', () => this.stopped())
    writer.pragma(`wal_autocheckpoint = ${SqliteCheckpointer.WRITER_BOUND}`)
  }

  /** No checkpoint runs or waits to run. */
  get idle(): boolean {
    return !this.running && this.timer === undefined
  }

  /** Told after every commit of the writer: a checkpoint follows within `intervalMs`. */
  committed(): void {
    this.wanted = true
    if (this.running || this.timer !== undefined || this.exited) return
    const wait = Math.max(0, this.lastStart + this.intervalMs - Date.now())
    this.timer = setTimeout(() => this.start(), wait)
    this.timer.unref()
  }

  private start(): void {
    this.timer = undefined
    if (this.running || !this.wanted) return
    this.wanted = false
    this.running = true
    this.lastStart = Date.now()
    this.worker.postMessage(0)
  }

  private finished(message: { result?: [number, number, number]; error?: string }): void {
    this.running = false
    if (message.result === undefined) this.counts.failures++
    else if (message.result[0] !== 0) this.counts.busy++
    else {
      this.counts.runs++
      this.counts.walFrames = Math.max(0, message.result[1])
    }
    if (this.wanted) this.committed()
  }

  /** The worker is gone (closed, or failed to start): the writer checkpoints on its own again. */
  private stopped(): void {
    this.exited = true
    this.running = false
    if (this.timer !== undefined) clearTimeout(this.timer)
    this.timer = undefined
    if (this.writer.open) this.writer.pragma(`wal_autocheckpoint = ${SqliteCheckpointer.WRITER_DEFAULT}`)
  }

  /** Stops the worker; the writer's close then checkpoints what is left. */
  async close(): Promise<void> {
    await this.worker.terminate()
    this.stopped()
  }
}
