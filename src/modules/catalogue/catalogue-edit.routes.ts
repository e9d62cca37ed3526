import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { callerOf } from '../../platform/idempotency.js'
import { operation } from '../../platform/schemas.js'
import { CatalogueResponse, CatalogueService, ServiceUpdateBody, StepUpdateBody } from './catalogue-edit.schemas.js'
import type { CatalogueEditService } from './catalogue-edit.service.js'

const tags = ['services']

/** Staff edit what they built under /v1/catalogue/ (D-47): staff and admin only (D-18). */
export function catalogueEditRoutes(app: App, catalogue: CatalogueEditService): void {
  app.post(
    '/v1/catalogue/services',
    {
      schema: operation({
        id: 'listCatalogue',
        summary: 'Catalogue services',
        description:
          'Every service in creation order with all its steps in order: texts, events and expected minutes (D-47, D-48). Everything the console needs in one call.',
        tags,
        response: Ref(CatalogueResponse),
        problems: []
      })
    },
    () => catalogue.list()
  )

  app.post(
    '/v1/catalogue/service/update',
    {
      schema: operation({
        id: 'updateCatalogueService',
        summary: 'Catalogue service update',
        description:
          "Renames a service (`new_name`, D-40 rules: 409 `service_exists` for a name another service has in any case; a new case of its own name is fine) and/or sets its `image_title`; fields left out stay. Transactions keep their service, and paths, views and statistics use the new name at once (D-47). Answers the service's element of the catalogue list.",
        tags,
        body: ServiceUpdateBody,
        response: Ref(CatalogueService),
        problems: ['service_not_found', 'service_exists'],
        idempotent: true
      })
    },
    (request) => catalogue.updateService(request.body, callerOf(request))
  )

  app.post(
    '/v1/catalogue/step/update',
    {
      schema: operation({
        id: 'updateCatalogueStep',
        summary: 'Catalogue step update',
        description:
          'Changes the fields sent of the step at `position_number`: `description`, `button_title`, `events` (replaced; `[]` for none; strings or `{"event"}` objects, D-41), `expected_minutes` (a whole JSON number from 1 to 43200, or null to clear, D-48). Transactions at the step stay there and show the new texts at once; only later step entries emit the new events (D-47). Answers the service\'s element of the catalogue list.',
        tags,
        body: StepUpdateBody,
        response: Ref(CatalogueService),
        problems: ['service_not_found', 'step_not_found'],
        idempotent: true
      })
    },
    (request) => catalogue.updateStep(request.body, callerOf(request))
  )
}
