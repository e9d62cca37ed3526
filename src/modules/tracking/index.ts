import type { Config } from '../../config.js'
import type { AppContext } from '../../platform/app-context.js'
import type { App } from '../../platform/app-types.js'
import { callersScope } from '../../platform/callers-scope.js'
import { useSchemas } from '../../platform/components.js'
import { trackingLinkRoutes, trackingStatusRoutes } from './tracking.routes.js'
import { TRACKING_SCHEMAS } from './tracking.schemas.js'
import { TrackingService } from './tracking.service.js'

/** What the tracking module uses of the app context. */
interface TrackingDeps extends Pick<AppContext, 'database' | 'useCases' | 'clock' | 'dataKey' | 'auth'> {
  readonly config: Pick<Config, 'publicUrl'>
  readonly rateLimits: Pick<AppContext['rateLimits'], 'tracking'>
}

/** Tracking links for customers. Who may call what is decided here. */
export function trackingModule(context: TrackingDeps) {
  const tracking = new TrackingService(context.database, context.useCases, context.clock, context.dataKey, context.config.publicUrl)
  return async (app: App): Promise<void> => {
    // The named schemas its answers refer to, for every scope below (platform/schemas.ts `useSchemas`).
    useSchemas(app, TRACKING_SCHEMAS)
    // Customers (their own transactions, checked by the service) and staff; not app keys.
    await app.register(callersScope(context.auth, ['customer', 'staff'], (own) => trackingLinkRoutes(own, tracking)))
    // The page's read, outside /v1: the token is its credential.
    trackingStatusRoutes(app, tracking, context.rateLimits.tracking)
  }
}
