import Type from 'typebox'
import type { Database } from '../db/database.js'
import type { App } from './app-types.js'
import { Constant } from './components.js'
import { sendProblem } from './error-handler.js'
import type { Metrics } from './metrics.js'
import { problems } from './problems.js'
import { CONNECTION_PROBLEMS, problemResponses, textAnswer } from './schemas.js'
import { WriteReadiness } from './write-readiness.js'

const Alive = Type.Object({ status: Constant('ok') }, { description: 'The process is alive.' })
const Ready = Type.Object({ status: Constant('ready') }, { description: 'The database answers and takes writes.' })

/** D-71: liveness, readiness and Prometheus metrics; none of them need credentials. */
export function registerHealth(app: App, database: Database, metrics: Metrics): void {
  const writes = new WriteReadiness(database)
  app.get(
    '/healthz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'healthz',
        summary: 'The process is alive',
        response: { 200: Alive, ...problemResponses(CONNECTION_PROBLEMS) }
      }
    },
    async () => ({ status: 'ok' })
  )

  app.get(
    '/readyz',
    {
      schema: {
        tags: ['operations'],
        operationId: 'readyz',
        summary: 'The database answers and takes writes',
        response: { 200: Ready, ...problemResponses([...CONNECTION_PROBLEMS, 'unavailable']) }
      }
    },
    async (request, reply) => {
      try {
        await database.ping()
        // Issue 25: a database that answers reads but refuses writes (a full disk) is not ready either.
        await writes.check()
        return { status: 'ready' }
      } catch (error) {
        request.log.warn({ err: error }, 'readiness check failed')
        return sendProblem(reply, problems.unavailable())
      }
    }
  )

  app.get(
    '/metrics',
    {
      schema: {
        tags: ['operations'],
        operationId: 'metrics',
        summary: 'Prometheus metrics: requests by route and status, durations, outbox backlog',
        description:
          'Always Prometheus text (D-71), also while the database cannot be reached: then the gauges read from it (`outbox_backlog`) are left out and `metrics_source_up{metric=…}` is 0.',
        response: {
          200: textAnswer('The metrics in the Prometheus text format.', 'text/plain; version=0.0.4'),
          ...problemResponses(CONNECTION_PROBLEMS)
        }
      }
    },
    async (_request, reply) => {
      reply.type(metrics.registry.contentType)
      return metrics.render()
    }
  )
}
