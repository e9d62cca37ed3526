import { VersionedMemo } from '../../db/versioned-memo.js'
import type { AppContext } from '../../platform/app-context.js'
import type { App } from '../../platform/app-types.js'
import { callersScope } from '../../platform/callers-scope.js'
import { useSchemas } from '../../platform/components.js'
import { serialiseSharedAnswersOnce } from '../../platform/shared-answers.js'
import { catalogueEditRoutes } from './catalogue-edit.routes.js'
import { CATALOGUE_EDIT_SCHEMAS } from './catalogue-edit.schemas.js'
import { CatalogueEditService } from './catalogue-edit.service.js'
import { itemReadRoutes, itemStaffRoutes } from './items.routes.js'
import { ITEM_SCHEMAS } from './items.schemas.js'
import { ItemsService } from './items.service.js'
import { serviceReadRoutes, serviceStaffRoutes } from './services.routes.js'
import { SERVICE_SCHEMAS } from './services.schemas.js'
import { ServicesService } from './services.service.js'

export { exportCatalogue } from './catalogue.export.repository.js'
export { decodeEvents, type EventName } from './events.js'
export { serviceKeyOf, serviceNameKey } from './names.js'
export { ProgressBar, SERVICE_VIEW_SCHEMAS, ServiceKey, ServiceView } from './services.schemas.js'
export { seedService } from './services.seed.js'
export { toServiceView } from './services.views.js'
export { stepCounterIn, stepCounterOut, stepCountersMove, stepCountersMoveLocked } from './step-counters.repository.js'

/** The catalogue: services, steps and items. Who may call what is decided here (D-12). */
export function catalogueModule(context: Pick<AppContext, 'database' | 'useCases' | 'clock' | 'auth'>) {
  // Statistics and item lists are polled by every board and app screen: kept until the data changes.
  const { dataVersion } = context.database
  const services = new ServicesService(context.database, context.useCases, context.clock, new VersionedMemo(dataVersion, 1))
  const items = new ItemsService(context.database, context.useCases, context.clock, new VersionedMemo(dataVersion))
  const editing = new CatalogueEditService(context.database, context.useCases)
  return async (app: App): Promise<void> => {
    // Their answers, shared between requests, are serialised once each (`config.sharedAnswer`).
    serialiseSharedAnswersOnce(app)
    // The named schemas its answers refer to, for every scope below (platform/schemas.ts `useSchemas`).
    useSchemas(app, [...SERVICE_SCHEMAS, ...ITEM_SCHEMAS, ...CATALOGUE_EDIT_SCHEMAS])
    // Every caller: app keys, customers, staff.
    await app.register(
      callersScope(context.auth, ['app', 'customer', 'staff'], (open) => {
        serviceReadRoutes(open, services)
        itemReadRoutes(open, items)
      })
    )
    // Staff and admin keys only (D-12, D-18).
    await app.register(
      callersScope(context.auth, ['staff'], (staff) => {
        serviceStaffRoutes(staff, services)
        itemStaffRoutes(staff, items)
        catalogueEditRoutes(staff, editing)
      })
    )
  }
}
