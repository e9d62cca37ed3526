import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { callerOf } from '../../platform/idempotency.js'
import { operation } from '../../platform/schemas.js'
import {
  AddStepBody,
  AddStepResponse,
  CreateServiceBody,
  RemoveStepBody,
  ServiceCreated,
  ServiceStepParams,
  ServiceView,
  StatsResponse,
  StepRemoved
} from './services.schemas.js'
import type { ServicesService } from './services.service.js'

const tags = ['services']

/** Reading one step of a service: open to every caller (D-12). */
export function serviceReadRoutes(app: App, services: ServicesService): void {
  app.post(
    '/v1/service/:service_name/:position_number',
    {
      schema: operation({
        id: 'getServiceStep',
        summary: 'Get service step',
        description:
          'The service view at one step: its description, button title, events and progress bar. The name is matched ignoring case; a position that is not a whole number from 1 to the number of steps is 404 `step_not_found` (D-43).',
        tags,
        params: ServiceStepParams,
        response: Ref(ServiceView),
        problems: ['service_not_found', 'step_not_found']
      })
    },
    (request) => services.step(request.params.service_name, request.params.position_number)
  )
}

/** Changing services and steps, and statistics: staff only (D-12). */
export function serviceStaffRoutes(app: App, services: ServicesService): void {
  app.post(
    '/v1/service/create',
    {
      schema: operation({
        id: 'createService',
        summary: 'Create service',
        description:
          'Creates a service whose step 1 is `description`. Names are trimmed, 1 to 100 characters, without `/`, unique ignoring case (409 `service_exists`) and not `create`, `add`, `remove` or `stats` (D-40), nor `.` or `..`, which clients resolve away in a path. Optional `button_title`, `events` and `image_title` (D-41).',
        tags,
        body: CreateServiceBody,
        response: Ref(ServiceCreated),
        problems: ['service_exists'],
        idempotent: true
      })
    },
    (request) => services.create(request.body, callerOf(request))
  )

  app.post(
    '/v1/service/add',
    {
      schema: operation({
        id: 'addStep',
        summary: 'Add step',
        description:
          'Inserts a step at `position_number` (1 to steps+1; later steps move up by one) or appends it. Transactions stay at their step (D-42).',
        tags,
        body: AddStepBody,
        response: Ref(AddStepResponse),
        problems: ['service_not_found'],
        idempotent: true
      })
    },
    (request) => services.addStep(request.body, callerOf(request))
  )

  app.post(
    '/v1/service/remove',
    {
      schema: operation({
        id: 'removeStep',
        summary: 'Remove step',
        description:
          'Removes the step at `position_number` (or `position`; 400 if both are sent and differ). A step any transaction is at cannot be removed (409 `step_in_use`), nor the only step (409 `last_step`); later steps move down by one (D-42).',
        tags,
        body: RemoveStepBody,
        response: Ref(StepRemoved),
        problems: ['service_not_found', 'step_not_found', 'step_in_use', 'last_step'],
        idempotent: true
      })
    },
    (request) => services.removeStep(request.body, callerOf(request))
  )

  app.post(
    '/v1/service/stats',
    {
      schema: operation({
        id: 'getServiceStatistics',
        summary: 'Get service statistics',
        description:
          'Per service, in creation order, one entry per step in step order: how many transactions are at the step, whatever their status. The counts of a service add up to its `total_orders` (D-44).',
        tags,
        response: Ref(StatsResponse),
        problems: []
      }),
      config: { sharedAnswer: true }
    },
    () => services.stats()
  )
}
