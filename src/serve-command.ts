import cluster from 'node:cluster'
import { reportListening, runPrimary, workerSlot } from './cluster.js'
import { type Config, ConfigError, loadConfig } from './config.js'
import { startServer } from './http-server.js'
import { createLogger } from './platform/logger.js'

/** Reads the configuration or stops the process with one line naming the bad variable (D-01). */
export function configOrExit(env: NodeJS.ProcessEnv = process.env): Config {
  try {
    return loadConfig(env)
  } catch (error) {
    if (error instanceof ConfigError) {
      process.stderr.write(`service-ordering: invalid configuration: ${error.message}\n`)
      process.exit(1)
    }
    throw error
  }
}

/** `service-ordering serve`: runs the API until SIGTERM or SIGINT, then drains and exits 0 (D-72). */
export async function serve(config: Config): Promise<void> {
  // Issue 10: WORKERS > 1 makes this process the primary of a node:cluster (cluster.ts); the workers
  // it forks run this same function and take the branch below, with the start-up work already done.
  if (cluster.isPrimary && config.workers > 1) return runPrimary(config)
  const slot = workerSlot()
  const logger = slot === null ? createLogger(config.logLevel) : createLogger(config.logLevel).child({ worker: slot })
  const server = await startServer(config, { logger, prepared: cluster.isWorker })
  let stopping = false
  const stop = (signal: NodeJS.Signals) => {
    if (stopping) return
    stopping = true
    logger.info({ signal }, 'shutting down: finishing requests in flight')
    server.close(10_000).then(
      () => {
        logger.info('stopped')
        process.exit(0)
      },
      (error: unknown) => {
        logger.error({ err: error }, 'shutdown failed')
        process.exit(1)
      }
    )
  }
  // `on`, not `once`: with `once` a second SIGTERM or SIGINT while draining met Node's default
  // handler and killed the process, cutting the requests in flight; `stopping` ignores repeats.
  process.on('SIGTERM', stop)
  process.on('SIGINT', stop)
  // Said only once the handlers above are in place: whoever waits for this line may signal at once,
  // and a SIGTERM before them met Node's default action and killed the process (D-72).
  if (cluster.isWorker) {
    logger.info({ url: server.url, pid: process.pid, dispatcher: config.dispatcher }, 'API worker is listening')
    reportListening(server.url)
  } else {
    logger.info({ url: server.url, database: config.database.kind }, 'service-ordering is listening')
  }
}
