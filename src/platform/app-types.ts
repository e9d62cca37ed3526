import type { IncomingMessage, ServerResponse } from 'node:http'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify'
import type { Principal } from './principal.js'

/** The Fastify instance every module registers its routes on, typed by TypeBox schemas. */
export type App = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>

declare module 'fastify' {
  interface FastifyRequest {
    /** Set by the access hook of the route's scope (auth.ts); read only on authenticated routes. */
    principal: Principal
    /** The body exactly as received, for the rare field JSON numbers cannot carry (cc_number). */
    rawBody: string | undefined
  }
}
