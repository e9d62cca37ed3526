import path from 'node:path'
import fastifyStatic from '@fastify/static'
import type { FastifyReply } from 'fastify'
import Type from 'typebox'
import type { AppContext } from '../../platform/app-context.js'
import type { App } from '../../platform/app-types.js'
import { sendProblem, unroutedProblem } from '../../platform/error-handler.js'
import { Problem } from '../../platform/problems.js'
import { CONNECTION_PROBLEMS, problemResponses, textAnswer } from '../../platform/schemas.js'
import { BuiltPages, PAGE_HEADERS, type PageName } from './pages.js'

const tags = ['operations']
// A page not built is 404 `route_not_found`, as a path that cannot be decoded is.
const pageProblems = problemResponses([...CONNECTION_PROBLEMS, 'route_not_found'])

function notBuilt(): Problem {
  return new Problem('route_not_found', 'The web console has not been built: run `npm run build:web` (npm ci and npm start do it).')
}

/**
 * The staff console at /console/ and the customers' tracking page at /track/{token}:
 * static files built by Vite from web/, served by this process. Both talk to the public API
 * only: the console to /v1 with the staff key the user types, the tracking page to
 * POST /track/{token}/status.
 */
export function webModule(context: Pick<AppContext, 'logger'>, pages = new BuiltPages()) {
  const send = (reply: FastifyReply, name: PageName) => {
    const html = pages.html(name)
    return html === undefined ? sendProblem(reply, notBuilt()) : reply.headers(PAGE_HEADERS).send(html)
  }
  return async (app: App): Promise<void> => {
    if (!pages.built)
      context.logger.warn({ root: pages.root }, 'the web console is not built; /console/ answers 404 until `npm run build:web` has run')

    app.get('/console', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/', 308))
    // D-75: the address a person types first leads to the console.
    app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console/', 302))

    app.get(
      '/console/',
      {
        schema: {
          tags,
          operationId: 'consolePage',
          summary: 'Staff console',
          description:
            "The web console for the shop staff: sign in with a staff API key (kept in the tab's sessionStorage only), the board of open orders per service, orders with receipt, note and history, customers, and the catalogue. Static files; every call it makes is a /v1 operation with Basic credentials.",
          response: { 200: textAnswer('The console page.', 'text/html'), ...pageProblems }
        }
      },
      async (_request, reply) => send(reply, 'index.html')
    )

    app.get(
      '/track/:token',
      {
        schema: {
          tags,
          operationId: 'trackingPage',
          summary: 'Tracking page',
          description:
            "The customer's tracking page for a link from POST /v1/transaction/{transaction_id}/tracking: the service, the progress bar, the current step and the timeline, read from POST /track/{token}/status. No credentials.",
          // Any token: the page is the same for all, and tells an unknown one so from the status it reads.
          params: Type.Object({ token: Type.String() }),
          response: { 200: textAnswer('The tracking page, for any token.', 'text/html'), ...pageProblems }
        }
      },
      async (_request, reply) => send(reply, 'track.html')
    )

    // What the static files refuse (a folder, a dot file, a NUL byte) is just not a file here: 404,
    // not the platform's 400 for a 4xx it does not know. Other failures go on to the app's handler.
    app.setErrorHandler((error, request, reply) => {
      const status = (error as { statusCode?: unknown }).statusCode
      if (typeof status === 'number' && status >= 400 && status < 500) return sendProblem(reply, unroutedProblem(request))
      throw error
    })

    // Hashed file names: cached for a year. Missing files fall through to the 404 problem document.
    await app.register(fastifyStatic, {
      root: path.join(pages.root, 'assets'),
      prefix: '/console/assets/',
      decorateReply: false,
      index: false,
      list: false,
      redirect: false,
      dotfiles: 'ignore',
      immutable: true,
      maxAge: '365d',
      suppressWarning: true
    })
  }
}
