import path from 'node:path'
import { fileURLToPath } from 'node:url'
import Fastify from 'fastify'

/**
 * The baseline every scenario's rate is divided by, so results from different machines compare: a
 * bare Fastify answering `POST /v1/ping`, run as its own process on the API's core (PORT set).
 */
export async function startBaseline(port: number, host = '127.0.0.1'): Promise<() => Promise<void>> {
  const app = Fastify({ logger: false })
  const pong = { pong: true, service: 'baseline' }
  app.post('/v1/ping', async () => pong)
  await app.listen({ port, host })
  return () => app.close()
}

const isMain = process.argv[1] !== undefined && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)
if (isMain) {
  const port = Number(process.env.PORT ?? 3999)
  const stop = await startBaseline(port)
  process.stdout.write(`baseline listening on http://127.0.0.1:${port}\n`)
  const shutdown = () => {
    void stop().then(() => process.exit(0))
  }
  process.once('SIGTERM', shutdown)
  process.once('SIGINT', shutdown)
}
