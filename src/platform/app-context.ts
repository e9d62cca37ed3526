import type { Logger } from 'pino'
import type { Clock } from '../common/clock.js'
import type { Config } from '../config.js'
import type { Database } from '../db/database.js'
import type { Authenticator } from './auth.js'
import type { UseCaseRunner } from './idempotency.js'
import type { Metrics } from './metrics.js'
import type { RateLimitStores } from './rate-limit.js'

/**
 * What app.ts builds once per app and hands the modules. No module takes it whole: each factory
 * names the fields it uses (`Pick<AppContext, …>`), so its dependencies read from its signature.
 */
export interface AppContext {
  readonly config: Config
  readonly database: Database
  readonly clock: Clock
  /** The data key sealing card numbers and links (payments/card-key.ts). */
  readonly dataKey: Buffer
  readonly auth: Authenticator
  readonly rateLimits: RateLimitStores
  readonly useCases: UseCaseRunner
  readonly metrics: Metrics
  readonly logger: Logger
  /** Draws transaction codes (D-50). */
  readonly drawTransactionCode: () => number
}
