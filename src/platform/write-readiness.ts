import type { Database } from '../db/database.js'
import { healthProbeRepository } from './health-probe.repository.js'

/** Healthy: a write is made to find out only when no use case committed within this. */
const PROBE_EVERY_MS = 5000
/** Refusing: at most one probe per this, however often /readyz is asked. */
const RETRY_MS = 1000

/** Thrown by `check` while the database refuses writes and no probe has shown otherwise since. */
class WritesRefused extends Error {
  override name = 'WritesRefused'
}

/**
 * Issue 25: whether the database takes writes, for /readyz. A database can answer reads while it
 * refuses every write (a full disk, a read-only PostgreSQL): /readyz must then fail too, or a load
 * balancer keeps sending writes. The unit of work notes when a use case last committed and when
 * the database last refused one (db/write-outcomes.ts); from that:
 * - a refusal not followed by a successful probe: not ready; a probe (a one-row upsert, committed,
 *   so on SQLite it must reach the WAL, which a full disk refuses) runs at most once a second and
 *   makes it ready again as soon as one commits;
 * - otherwise ready; when nothing committed for PROBE_EVERY_MS, one probe finds out first, so a
 *   healthy /readyz writes at most once per PROBE_EVERY_MS and not at all under traffic.
 * Concurrent checks share one probe.
 */
export class WriteReadiness {
  /** performance.now() at the start of the last probe that committed. */
  private confirmedAt = Number.NEGATIVE_INFINITY
  private probedAt = Number.NEGATIVE_INFINITY
  private probing: Promise<void> | null = null
  private lastFailure: unknown = null

  private readonly probeRow: ReturnType<typeof healthProbeRepository>

  constructor(private readonly database: Database) {
    this.probeRow = healthProbeRepository(database)
  }

  /** Resolves when writes can be taken; rejects with the reason when not. */
  check(): Promise<void> {
    if (this.probing !== null) return this.probing
    const now = performance.now()
    const writes = this.database.writes
    const refused = writes.refusedAt > this.confirmedAt
    if (!refused && now - Math.max(writes.committedAt, this.confirmedAt) < PROBE_EVERY_MS) return Promise.resolve()
    // Probed within the last second: its outcome stands.
    if (now - this.probedAt < RETRY_MS) {
      if (this.lastFailure !== null) return Promise.reject(this.lastFailure)
      return refused ? Promise.reject(new WritesRefused('the database refused a write since the last probe')) : Promise.resolve()
    }
    return this.probe(now)
  }

  private probe(started: number): Promise<void> {
    this.probedAt = started
    const probing = this.database.unitOfWork
      .run((tx) => this.probeRow.write(tx, Date.now()))
      .then(
        () => {
          this.confirmedAt = started
          this.lastFailure = null
        },
        (error: unknown) => {
          this.lastFailure = error
          throw error
        }
      )
      .finally(() => {
        this.probing = null
      })
    this.probing = probing
    return probing
  }
}
