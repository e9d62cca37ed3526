import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import Fastify, { type FastifyBaseLogger, LogController } from 'fastify'
import type { Logger } from 'pino'
import { type Clock, systemClock } from './common/clock.js'
import { MAX_CONCURRENT_PASSWORD_HASHES, passwordHashing } from './common/crypto.js'
import { newTransactionCode } from './common/ids.js'
import type { Config } from './config.js'
import type { Database } from './db/database.js'
import { VersionedMemo } from './db/versioned-memo.js'
import { apiKeyCredentials } from './modules/api-keys/index.js'
import { type BackupMetrics, registerBackupMetrics } from './modules/backups/index.js'
import { catalogueModule } from './modules/catalogue/index.js'
import { customerLoginQuery, customersModule } from './modules/customers/index.js'
import { type OutboxCounters, registerOutboxMetrics } from './modules/notifications/index.js'
import { ordersModule } from './modules/orders/index.js'
import { endedSessionsPurge, staffCredentials, staffModule } from './modules/staff/index.js'
import { trackingModule } from './modules/tracking/index.js'
import { webModule } from './modules/web/index.js'
import type { AppContext } from './platform/app-context.js'
import type { App } from './platform/app-types.js'
import { Authenticator, type CredentialStore } from './platform/auth.js'
import { BODY_LIMIT, registerBodyParsers } from './platform/body-parsers.js'
import { VerifiedCredentialCache } from './platform/credential-cache.js'
import { frameworkProblem, registerErrorHandling, sendProblem } from './platform/error-handler.js'
import { registerHealth } from './platform/health.js'
import { answerUnusualRequests, httpServerOptions, limitConnections } from './platform/http-limits.js'
import { callerOf, takesIdempotencyKey, UseCaseRunner } from './platform/idempotency.js'
import { lazyChildLoggerFactory } from './platform/lazy-logger.js'
import { createLogger } from './platform/logger.js'
import { registerMaintenance } from './platform/maintenance.js'
import { Metrics } from './platform/metrics.js'
import { registerOpenApi, registerOpenApiRoutes } from './platform/openapi.js'
import { createRateLimitStores } from './platform/rate-limit.redis.js'
import { answerBeforeRouting, registerRequestContext, requestIdOf } from './platform/request-context.js'
import { SCHEMA_KEYWORDS } from './platform/schemas.js'
import { SessionAuthenticator } from './platform/session-auth.js'
import { VERSION } from './version.js'

declare module 'fastify' {
  interface FastifyInstance {
    /** The outbox counters this app's /metrics serves: a dispatcher beside it counts into them (D-71). */
    outboxCounters: OutboxCounters
    /** With BACKUP_DIR set: the backup metrics this app's /metrics serves; the schedule beside it counts into them (D-92). */
    backupMetrics: BackupMetrics | null
  }
}

/** What the app is built from; everything with state comes in from outside (main.ts or a test). */
export interface AppDeps {
  config: Config
  database: Database
  /** The data key sealing card numbers and reset links (payments/card-key.ts). */
  dataKey: Buffer
  clock?: Clock
  logger?: Logger
  /** Draws transaction codes (D-50); by default at random. Tests make it draw a code already taken. */
  drawTransactionCode?: () => number
}

/**
 * The stored credentials, kept until the database changes (VersionedMemo: on SQLite any commit, by
 * this process, the CLI or another process, drops them; PostgreSQL reads every time). A revoked key
 * or a changed password is seen by the next request as before, and a read-only stretch of traffic
 * skips one query per request. Unknown ids and e-mails are kept too, so asking twice costs the same
 * whether or not they exist.
 */
function credentialStore(database: Database): CredentialStore {
  const findApiKey = apiKeyCredentials(database)
  const customerLogin = customerLoginQuery(database)
  const { findStaffLogin } = staffCredentials(database)
  const apiKeyMemo = new VersionedMemo<Awaited<ReturnType<CredentialStore['findApiKey']>>>(database.dataVersion, 1000)
  const loginMemo = new VersionedMemo<Awaited<ReturnType<CredentialStore['findCustomerLogin']>>>(database.dataVersion, 1000)
  return {
    findApiKey: (id) => apiKeyMemo.get(id, () => findApiKey(id)),
    findCustomerLogin: (email) => loginMemo.get(email, () => customerLogin.first({ email })),
    apiKeyInMemory: (id) => apiKeyMemo.peek(id),
    customerLoginInMemory: (email) => loginMemo.peek(email),
    // Console sign-ins only (D-16): rare enough to read every time.
    findStaffLogin
  }
}

/**
 * Builds the whole HTTP app: platform first, then the modules in a fixed order (ARCHITECTURE 1, 2).
 * Never listens; main.ts or a test decides what to do with it.
 */
export async function buildApp(deps: AppDeps): Promise<App> {
  const clock = deps.clock ?? systemClock
  const logger = deps.logger ?? createLogger(deps.config.logLevel)
  // Issue 10: counters shared through Redis when REDIS_URL is set, else in this process (D-14).
  const rateLimits = createRateLimitStores({ redisUrl: deps.config.redisUrl, clock, logger, maxKeys: deps.config.rateLimitMaxKeys })
  const metrics = new Metrics()
  const outboxCounters = registerOutboxMetrics(metrics, deps.database)
  metrics.addGauge(
    'password_hashes',
    `Password hashes (scrypt, 32 MiB each) running, at most ${MAX_CONCURRENT_PASSWORD_HASHES}, and waiting for a turn.`,
    ['state'],
    async () => [
      { labels: { state: 'running' }, value: passwordHashing.running },
      { labels: { state: 'waiting' }, value: passwordHashing.waiting }
    ]
  )
  for (const gauge of deps.database.unitOfWork.metrics?.() ?? []) {
    metrics.addGauge(gauge.name, gauge.help, gauge.labelNames, async () => gauge.read())
  }
  const context: AppContext = {
    config: deps.config,
    database: deps.database,
    clock,
    dataKey: deps.dataKey,
    auth: new Authenticator(
      credentialStore(deps.database),
      new VerifiedCredentialCache(clock),
      rateLimits.signIn,
      new SessionAuthenticator(staffCredentials(deps.database).sessions, clock)
    ),
    rateLimits,
    useCases: new UseCaseRunner(deps.database, clock, deps.dataKey),
    metrics,
    logger,
    drawTransactionCode: deps.drawTransactionCode ?? newTransactionCode
  }

  const app = Fastify({
    loggerInstance: logger as FastifyBaseLogger,
    // Our own onResponse hook writes the one line per request (request-context.ts).
    logController: new LogController({ disableRequestLogging: true, requestIdLogLabel: 'request_id' }),
    childLoggerFactory: lazyChildLoggerFactory,
    genReqId: requestIdOf,
    requestIdHeader: false,
    bodyLimit: BODY_LIMIT,
    trustProxy: trustProxyOption(deps.config.trustProxy),
    return503OnClosing: false,
    // Slow or hostile clients: deadlines for headers and the whole request, header size.
    ...httpServerOptions(deps.config),
    // As long as any request line the server accepts (HTTP_MAX_HEADER_SIZE at most 1 MiB): an
    // over-long id or name reaches its route and is answered as unknown (`customer_not_found`, …,
    // schemas.ts PathKey), not `route_not_found` for a path that exists.
    routerOptions: { maxParamLength: 1_048_576 },
    ajv: {
      customOptions: {
        // Types are exact: a number where text is expected is an error, not converted.
        coerceTypes: false,
        allErrors: true,
        removeAdditional: false,
        useDefaults: true,
        verbose: true,
        allowUnionTypes: true,
        keywords: [...SCHEMA_KEYWORDS]
      }
    },
    frameworkErrors: (error, request, reply) => {
      answerBeforeRouting(metrics, request, reply)
      sendProblem(reply, frameworkProblem(error, request, deps.database.dialect))
    }
  }).withTypeProvider<TypeBoxTypeProvider>()

  app.decorate('outboxCounters', outboxCounters)
  app.decorate('backupMetrics', deps.config.backupDir === null ? null : registerBackupMetrics(metrics))
  limitConnections(app.server, deps.config)
  answerUnusualRequests(app.server)
  registerErrorHandling(app, deps.database.dialect, async (request) =>
    // Only operations that take a key (their header schema names it), once the caller is known.
    request.principal !== undefined && takesIdempotencyKey(request) ? context.useCases.reusedElsewhere(callerOf(request)) : false
  )
  registerBodyParsers(app)
  registerRequestContext(app, metrics)
  await registerOpenApi(app, VERSION, deps.config.publicUrl)
  registerHealth(app, deps.database, metrics)

  await registerModules(app, context)
  app.addHook('onClose', async () => rateLimits.close())
  registerMaintenance(
    app,
    [{ name: 'expired idempotency keys', run: () => context.useCases.purgeExpired() }, endedSessionsPurge(deps.database, clock)],
    logger as FastifyBaseLogger
  )

  await registerOpenApiRoutes(app)
  return app
}

// A hop count trusts that many proxies nearest the server (proxy-addr semantics).
function trustProxyOption(value: Config['trustProxy']): boolean | string | ((address: string, hop: number) => boolean) {
  return typeof value === 'number' ? (_address, hop) => hop < value : value
}

/** The modules, in the order their routes appear in the OpenAPI document. */
async function registerModules(app: App, context: AppContext): Promise<void> {
  await app.register(customersModule(context))
  await app.register(catalogueModule(context))
  await app.register(ordersModule(context))
  await app.register(trackingModule(context))
  await app.register(staffModule(context))
  await app.register(webModule(context))
}
