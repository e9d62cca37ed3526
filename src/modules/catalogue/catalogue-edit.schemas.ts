import Type, { type Static } from 'typebox'
import { Instant, Ref } from '../../platform/components.js'
import { Text, WholeNumberOrDigits } from '../../platform/schemas.js'
import {
  ButtonTitle,
  Description,
  Events,
  ExpectedMinutes,
  MAX_EXPECTED_MINUTES,
  NAME_MAX,
  PositionText,
  ServiceKey,
  ServiceName,
  StepEvent
} from './services.schemas.js'

export const ServiceUpdateBody = Type.Object({
  service_name: ServiceKey('The service to change, trimmed and matched ignoring case (D-40).'),
  new_name: Type.Optional(ServiceName),
  image_title: Type.Optional(Text(100, { description: "Short name of the service's image, trimmed." }))
})
export type ServiceUpdateBody = Static<typeof ServiceUpdateBody>

export const StepUpdateBody = Type.Object({
  service_name: ServiceKey(),
  position_number: WholeNumberOrDigits(1, 10_000, 'The step to change; one past the last step is 404 `step_not_found`.'),
  description: Type.Optional(Description),
  button_title: Type.Optional(ButtonTitle),
  // Sent: the step's events are these (`[]`: none); left out: unchanged (D-47).
  events: Type.Optional(Events),
  expected_minutes: Type.Optional(ExpectedMinutes)
})
export type StepUpdateBody = Static<typeof StepUpdateBody>

/** One step as the catalogue lists it (D-47). */
const CatalogueStep = Type.Object(
  {
    position_number: PositionText('Numeric text; the first step is 1.'),
    description: Type.String({ maxLength: 500 }),
    button_title: Type.String({ maxLength: 500 }),
    events: Type.Array(Ref(StepEvent)),
    expected_minutes: Type.Union([Type.Integer({ minimum: 1, maximum: MAX_EXPECTED_MINUTES }), Type.Null()], {
      description: 'Minutes an order is expected at the step; null for none (D-48).'
    })
  },
  { $id: 'CatalogueStep' }
)

/** A service with every step: one element of the catalogue list, and what its edits answer (D-47). */
export const CatalogueService = Type.Object(
  {
    service_id: Type.String({ maxLength: 64 }),
    service_name: Type.String({ maxLength: NAME_MAX }),
    image_title: Type.String({ maxLength: 100 }),
    created_at: Instant(),
    steps: Type.Array(Ref(CatalogueStep), { description: 'In step order.' })
  },
  { $id: 'CatalogueService' }
)

export const CatalogueResponse = Type.Object(
  { services: Type.Array(Ref(CatalogueService), { description: 'In creation order (D-47).' }) },
  { $id: 'Catalogue' }
)

/** The named schemas of the catalogue editing answers. */
export const CATALOGUE_EDIT_SCHEMAS = [CatalogueStep, CatalogueService, CatalogueResponse]
