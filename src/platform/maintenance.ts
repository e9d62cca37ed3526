import type { FastifyBaseLogger } from 'fastify'
import type { App } from './app-types.js'

/** A clean-up the app runs from time to time, e.g. deleting idempotency keys older than 24 hours. */
export interface MaintenanceTask {
  name: string
  run(): Promise<number>
}

const INTERVAL_MS = 10 * 60 * 1000

/**
 * Runs the tasks every ten minutes while the app is up (and once shortly after start). Failures are
 * logged and retried at the next tick; the timer never keeps the process alive.
 */
export function registerMaintenance(app: App, tasks: readonly MaintenanceTask[], logger: FastifyBaseLogger): void {
  let timer: NodeJS.Timeout | undefined
  let running = false
  const tick = async () => {
    if (running) return
    running = true
    for (const task of tasks) {
      try {
        const removed = await task.run()
        if (removed > 0) logger.info({ task: task.name, removed }, 'maintenance done')
      } catch (error) {
        logger.warn({ err: error, task: task.name }, 'maintenance failed; will retry')
      }
    }
    running = false
  }
  app.addHook('onReady', async () => {
    timer = setInterval(() => void tick(), INTERVAL_MS)
    timer.unref()
    setTimeout(() => void tick(), 5_000).unref()
  })
  app.addHook('onClose', async () => {
    if (timer !== undefined) clearInterval(timer)
  })
}
