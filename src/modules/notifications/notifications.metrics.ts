import { Counter } from 'prom-client'
import type { Database } from '../../db/database.js'
import type { Metrics } from '../../platform/metrics.js'
import { BACKLOG_STATUSES, outboxBacklog } from './outbox.repository.js'
import { OUTBOX_CHANNELS as CHANNELS, type OutboxChannel } from './outbox.table.js'

/** What the dispatcher counts, per channel (D-71). */
export interface OutboxCounters {
  delivered(channel: OutboxChannel): void
  skipped(channel: OutboxChannel): void
  failed(channel: OutboxChannel): void
  dead(channel: OutboxChannel): void
}

type MakeCounter = (name: string, help: string, labelNames: readonly 'channel'[]) => Counter<'channel'>

function countersOn(counter: MakeCounter): OutboxCounters {
  const delivered = counter('outbox_deliveries_total', 'Outbox messages delivered, by channel.', ['channel'])
  const skipped = counter('outbox_skipped_total', 'Outbox messages skipped with a recorded reason (no phone), by channel.', ['channel'])
  const failed = counter('outbox_failures_total', 'Failed outbox delivery attempts, by channel.', ['channel'])
  const dead = counter('outbox_dead_letters_total', 'Outbox messages given up on after their last failure, by channel.', ['channel'])
  return {
    delivered: (channel) => delivered.inc({ channel }),
    skipped: (channel) => skipped.inc({ channel }),
    failed: (channel) => failed.inc({ channel }),
    dead: (channel) => dead.inc({ channel })
  }
}

/**
 * Adds the outbox series to an app's /metrics (D-71): `outbox_backlog{channel,status}`, read from the
 * database at scrape time so it is right wherever the dispatcher runs, and the dispatcher's counters.
 */
export function registerOutboxMetrics(metrics: Metrics, database: Database): OutboxCounters {
  const backlog = outboxBacklog(database)
  metrics.addGauge(
    'outbox_backlog',
    'Outbox messages not delivered, by channel and status: pending (waiting, backing off or in flight) and dead.',
    ['channel', 'status'],
    async () => {
      const counts = new Map<string, number>()
      for (const row of await backlog.rows({})) counts.set(`${row.channel} ${row.status}`, Number(row.n))
      // Every series is always present, zero included, so alerts and graphs need no special case.
      return CHANNELS.flatMap((channel) =>
        BACKLOG_STATUSES.map((status) => ({ labels: { channel, status }, value: counts.get(`${channel} ${status}`) ?? 0 }))
      )
    }
  )
  return countersOn((name, help, labelNames) => metrics.counter(name, help, labelNames))
}

/** Counters of a registry nobody serves: for a dispatcher started without an app (tests). */
export function unservedOutboxCounters(): OutboxCounters {
  return countersOn((name, help, labelNames) => new Counter({ name, help, labelNames: [...labelNames], registers: [] }))
}
