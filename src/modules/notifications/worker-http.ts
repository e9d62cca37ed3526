import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify'
import type { Logger } from 'pino'
import type { Config } from '../../config.js'
import type { Database } from '../../db/database.js'
import type { App } from '../../platform/app-types.js'
import { registerErrorHandling } from '../../platform/error-handler.js'
import { registerHealth } from '../../platform/health.js'
import { Metrics } from '../../platform/metrics.js'
import { registerRequestContext, requestIdOf } from '../../platform/request-context.js'
import { type OutboxCounters, registerOutboxMetrics } from './notifications.metrics.js'

/** The worker's own HTTP listener, once listening. */
export interface WorkerHttp {
  readonly url: string
  close(): Promise<void>
}

/** The outbox series of a `worker` process, on a registry of its own, and the counters its dispatcher counts into. */
export function workerMetrics(database: Database): { metrics: Metrics; counters: OutboxCounters } {
  const metrics = new Metrics()
  return { metrics, counters: registerOutboxMetrics(metrics, database) }
}

/**
 * `/healthz`, `/readyz` and `/metrics` of a `worker` process on WORKER_METRICS_PORT (D-61, D-71):
 * its delivery, failure and dead-letter counters exist only in its memory, so each worker is
 * scraped on its own, as each API process is. No /v1 routes and no credentials.
 */
export async function startWorkerHttp(
  config: Config,
  port: number,
  database: Database,
  metrics: Metrics,
  logger: Logger
): Promise<WorkerHttp> {
  const app: App = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // D-73 holds here too: every answer carries X-Request-Id and leaves one log line and metric sample.
    genReqId: requestIdOf,
    // As the API (app.ts): Fastify's `disableRequestLogging` option prints a plain-text deprecation warning (D-73: every line is JSON).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' })
  }).withTypeProvider<TypeBoxTypeProvider>()
  registerErrorHandling(app, database.dialect)
  registerRequestContext(app, metrics)
  registerHealth(app, database, metrics)
  const url = await app.listen({ host: config.host, port })
  return { url, close: () => app.close() }
}
