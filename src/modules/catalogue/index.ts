import type { AppContext } from '../../app.js'
import type { App } from '../../platform/app-types.js'
import { callersScope } from '../../platform/auth.js'
import { useSchemas } from '../../platform/components.js'
import { itemReadRoutes, itemStaffRoutes } from './items.routes.js'
import { ITEM_SCHEMAS } from './items.schemas.js'
import { ItemsService } from './items.service.js'
import { serviceReadRoutes, serviceStaffRoutes } from './services.routes.js'
import { SERVICE_SCHEMAS } from './services.schemas.js'
import { ServicesService } from './services.service.js'

export { ProgressBar, SERVICE_VIEW_SCHEMAS, ServiceKey, ServiceView } from './services.schemas.js'

/** The catalogue: services, steps and items. Who may call what is decided here (D-12). */
export function catalogueModule(context: AppContext) {
  const services = new ServicesService(context.database, context.writes, context.clock)
  const items = new ItemsService(context.database, context.writes, context.clock)
  return async (app: App): Promise<void> => {
    // The named schemas its answers refer to, for every scope below (platform/schemas.ts `useSchemas`).
    useSchemas(app, [...SERVICE_SCHEMAS, ...ITEM_SCHEMAS])
    // Every caller: app keys, customers, staff.
    await app.register(
      callersScope(context.auth, ['app', 'customer', 'staff'], (open) => {
        serviceReadRoutes(open, services)
        itemReadRoutes(open, items)
      })
    )
    // Staff and admin keys only.
    await app.register(
      callersScope(context.auth, ['staff'], (staff) => {
        serviceStaffRoutes(staff, services)
        itemStaffRoutes(staff, items)
      })
    )
  }
}
