import type { FastifyRequest, HookHandlerDoneFunction } from 'fastify'
import type { App } from './app-types.js'
import type { Authenticator } from './auth.js'
import { admits, type Principal, type ScopeCaller } from './principal.js'
import { problems } from './problems.js'
import { addProblems } from './schemas.js'

const CALLER_NAMES: Record<ScopeCaller, string> = {
  app: 'app keys',
  customer: 'customers',
  staff: 'staff and admin keys, staff users signed in to the console',
  admin: 'admin keys and admin staff users only'
}

/**
 * A scope of routes open to the given callers (D-12, D-18). Every route registered inside it
 * requires Basic credentials of one of those classes, or a console session of a staff user with
 * its CSRF token (D-16): 401 without valid ones, 403 for another class (`csrf_failed` for a
 * session without its token). Finer rules (a customer's own records only) are the services'.
 */
export function callersScope(auth: Authenticator, callers: readonly ScopeCaller[], routes: (scope: App) => void) {
  return async function scope(app: App): Promise<void> {
    app.addHook('onRoute', (route) => {
      if (route.schema === undefined) return
      const schema = route.schema as Record<string, unknown>
      // Basic credentials, or a console session cookie with its CSRF token (D-16).
      schema.security = [{ basicAuth: [] }, { consoleSession: [], csrfToken: [] }]
      schema['x-callers'] = [...callers]
      const who = `Callers (D-12, D-18): ${callers.map((c) => CALLER_NAMES[c]).join(', ')}.`
      schema.description = typeof schema.description === 'string' ? `${who}\n\n${schema.description}` : who
      const everyone = ['app', 'customer', 'staff'].every((c) => callers.includes(c as ScopeCaller))
      addProblems(route.schema, everyone ? ['unauthenticated', 'csrf_failed'] : ['unauthenticated', 'forbidden', 'csrf_failed'])
    })
    // Callback style, so a request admitted at once (`authenticate` answering without a promise)
    // goes on to its handler without waiting for a microtask turn.
    const admit = (request: FastifyRequest, principal: Principal, done: HookHandlerDoneFunction): void => {
      if (!admits(callers, principal)) {
        done(problems.forbidden())
        return
      }
      request.principal = principal
      done()
    }
    app.addHook('onRequest', (request, _reply, done) => {
      let outcome: Principal | Promise<Principal>
      try {
        outcome = auth.authenticateRequest(request.headers, request.ip)
      } catch (error) {
        return done(error as Error)
      }
      if (outcome instanceof Promise) outcome.then((principal) => admit(request, principal, done), done)
      else admit(request, outcome, done)
    })
    routes(app)
  }
}
