import type { FastifyReply, FastifyRequest, RouteHandlerMethod } from 'fastify'
import type { App } from './app-types.js'

declare module 'fastify' {
  interface FastifyContextConfig {
    /**
     * The route answers objects shared between requests (a memoised read, common/read-memo.ts):
     * each is serialised once, and its bytes sent to every request that gets it (`serialiseSharedAnswersOnce`).
     */
    sharedAnswer?: boolean
  }
}

/**
 * Wires `config: { sharedAnswer: true }` for the routes registered in `app` after this call: the
 * route's 200 answer is serialised by its own response schema once per answer object instead of once
 * per request, as a polled whole-catalogue read runs to kilobytes. The bytes are kept as long as
 * the answer object is: the memo that shares it decides.
 */
export function serialiseSharedAnswersOnce(app: App): void {
  const bodies = new WeakMap<object, Buffer>()
  app.addHook('onRoute', (route) => {
    if (route.config?.sharedAnswer !== true) return
    const handler = route.handler as (this: unknown, request: FastifyRequest, reply: FastifyReply) => Promise<object>
    route.handler = async function sendSerialisedOnce(request, reply) {
      const answer = await handler.call(this, request, reply)
      let body = bodies.get(answer)
      if (body === undefined) {
        // The route's response serialiser gives text (the declared Buffer and ArrayBuffer are for other serialisers).
        body = Buffer.from(reply.serialize(answer) as string)
        bodies.set(answer, body)
      }
      // A Buffer with a JSON content type is sent as it is, not serialised again.
      return reply.type('application/json; charset=utf-8').send(body)
    } satisfies RouteHandlerMethod
  })
}
