import type { FastifyReply } from 'fastify'

// Bodies of kept answers, by the answer object: dropped with it when its memo moves on.
const bodies = new WeakMap<object, Buffer>()

/**
 * Sends a 200 answer that is kept and shared between requests (VersionedMemo), serialised by the
 * route's own response schema once per kept answer instead of once per request. The statistics
 * body runs to kilobytes, and its serialisation was a tenth of the request (BENCHMARKS.md).
 */
export function sendKept(reply: FastifyReply, answer: object): FastifyReply {
  let body = bodies.get(answer)
  if (body === undefined) {
    // The route's response serialiser gives text (the declared Buffer and ArrayBuffer are for other serialisers).
    body = Buffer.from(reply.serialize(answer) as string)
    bodies.set(answer, body)
  }
  // A Buffer with a JSON content type is sent as it is, not serialised again.
  return reply.type('application/json; charset=utf-8').send(body)
}
