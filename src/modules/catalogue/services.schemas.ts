import Type, { type Static } from 'typebox'
import { Constant, Ref } from '../../platform/components.js'
import { Key, Line, PathKey, Text, UNTRIMMED_TEXT_BOUND, WholeNumberOrDigits } from '../../platform/schemas.js'
import { EVENT_NAMES } from './events.js'

// D-40 limits a name to 100 characters once trimmed: the service checks the trimmed name (names.ts),
// and the document states the limit.
export const NAME_MAX = 100
export const ServiceName = Text(UNTRIMMED_TEXT_BOUND, {
  description: 'The service name: trimmed, then 1 to 100 characters, no `/`, not `.` or `..`, unique ignoring case (D-40).',
  'x-doc-maxLength': NAME_MAX
})
/**
 * The name of an existing service, trimmed and matched ignoring case (D-40): over 100 characters once
 * trimmed it is 400 (D-70, names.ts serviceKeyOf), else one that names no service is 404.
 */
export const ServiceKey = (
  description = 'The name of the service, trimmed and matched ignoring case (D-40); at most 100 characters once trimmed (D-70).'
) => Key('service_not_found', UNTRIMMED_TEXT_BOUND, { description, 'x-doc-maxLength': NAME_MAX })
export const Description = Text(500)
export const ButtonTitle = Text(500, { description: 'Label of the action offered at the step.' })

// The service checks the name (D-41, a message naming the entry); the document lists the names.
const EventName = Line(20, { 'x-doc-enum': [...EVENT_NAMES] })
const EventEntry = Type.Union([EventName, Type.Object({ event: EventName }, { required: ['event'] })], {
  description: `One of ${EVENT_NAMES.map((e) => `\`${e}\``).join(', ')}, as a string or as \`{"event": …}\`.`
})
export const Events = Type.Array(EventEntry, {
  maxItems: 10,
  description: 'Events emitted when a transaction enters the step (D-41, D-60).'
})

/** D-48: a whole JSON number of minutes (not text), 1 to 43,200 (30 days), or null for none. */
export const MAX_EXPECTED_MINUTES = 43_200
export const ExpectedMinutes = Type.Unsafe<number | null>({
  type: ['integer', 'null'],
  minimum: 1,
  maximum: MAX_EXPECTED_MINUTES,
  description:
    'Minutes an order is expected to stay at the step: a whole JSON number from 1 to 43200 (not text), or null for none (default). An open order at the step longer than this is overdue (D-48).',
  'x-error': 'must be a whole number from 1 to 43200, or null'
})

export const CreateServiceBody = Type.Object({
  service_name: ServiceName,
  description: Text(500, { description: 'Becomes the description of step 1.' }),
  button_title: Type.Optional(ButtonTitle),
  events: Type.Optional(Events),
  image_title: Type.Optional(Text(100, { description: "Short name of the service's image; default derived from the name (D-41)." })),
  expected_minutes: Type.Optional(ExpectedMinutes)
})
export type CreateServiceBody = Static<typeof CreateServiceBody>

/** What the services return for create and remove step; each operation answers its own constant. */
export const MessageResponse = Type.Object({ message: Type.String() })

export const ServiceCreated = Type.Object({ message: Constant('successfully created') }, { $id: 'ServiceCreated' })

export const AddStepBody = Type.Object({
  service_name: ServiceKey(),
  description: Description,
  position_number: Type.Optional(
    WholeNumberOrDigits(1, 10_000, 'Where to insert, 1 to steps+1; later steps move up by one. Appended when left out (D-42).')
  ),
  button_title: Type.Optional(ButtonTitle),
  events: Type.Optional(Events),
  expected_minutes: Type.Optional(ExpectedMinutes)
})
export type AddStepBody = Static<typeof AddStepBody>

// A position number as answers write it: digit text, the first step 1.
export const PositionText = (description: string) => Type.String({ pattern: '^[1-9][0-9]*$', description })

export const AddStepResponse = Type.Object(
  {
    service_name: Type.String({ maxLength: NAME_MAX }),
    description: Type.String({ maxLength: 500 }),
    position: PositionText('The position number of the new step.')
  },
  { $id: 'StepAdded' }
)

export const RemoveStepBody = Type.Object({
  service_name: ServiceKey(),
  position_number: Type.Optional(WholeNumberOrDigits(1, 10_000, 'The step to remove.')),
  position: Type.Optional(WholeNumberOrDigits(1, 10_000, 'Read as position_number when that is not sent (D-42).')),
  description: Type.Optional(Text(500, { description: 'Listed by the spec; not used.' }))
})
export type RemoveStepBody = Static<typeof RemoveStepBody>

export const StepRemoved = Type.Object({ message: Constant('successfully removed') }, { $id: 'StepRemoved' })

const ServicePathName = PathKey('service_not_found', {
  description: 'The name of the service, URL-decoded, matched ignoring case (D-40).',
  'x-doc-maxLength': NAME_MAX
})

export const ServiceStepParams = Type.Object({
  service_name: ServicePathName,
  // Anything else names no step: 404, never a 400 (D-43), so the pattern is the document's only.
  position_number: Type.String({
    description: 'A whole number from 1 to the number of steps; anything else is 404 `step_not_found` (D-43).',
    'x-doc-pattern': '^[1-9][0-9]*$'
  })
})

export const ServiceNameParams = Type.Object({ service_name: ServicePathName })

/** An event a step emits when a transaction enters it (D-41, D-60). */
export const StepEvent = Type.Object({ event: Type.String({ enum: [...EVENT_NAMES] }) }, { $id: 'StepEvent' })

/** One step of a service, as the service view shows it. */
const Step = Type.Object(
  {
    position_number: PositionText('Numeric text; the first step is 1.'),
    position_description: Type.String({ maxLength: 500 }),
    button_title: Type.String({ maxLength: 500 }),
    events: Type.Array(Ref(StepEvent))
  },
  { $id: 'Step' }
)

/** How far along its service a step is (D-43). */
export const ProgressBar = Type.Object(
  {
    total_steps: Type.Integer({ minimum: 1 }),
    percentage: Type.Number({ minimum: 0, maximum: 100, description: 'position / total_steps * 100 as a JavaScript number (D-43).' })
  },
  { $id: 'ProgressBar' }
)

/** The service view (spec "Service view"): a service at one of its steps. */
export const ServiceView = Type.Object(
  {
    service_id: Type.String({ maxLength: 64 }),
    service_name: Type.String({ maxLength: NAME_MAX }),
    position: Ref(Step),
    progress_bar: Ref(ProgressBar)
  },
  { $id: 'Service', description: 'A service at one of its steps (spec "Service view").' }
)

/** The named schemas of the service view, which transactions embed too. */
export const SERVICE_VIEW_SCHEMAS = [StepEvent, Step, ProgressBar, ServiceView]

const StatsEntry = Type.Object(
  {
    service_name: Type.Optional(Type.String({ maxLength: NAME_MAX, description: 'First entry only.' })),
    image_title: Type.Optional(Type.String({ maxLength: 100, description: 'First entry only.' })),
    // Optional only so the serialiser keeps this field order; every entry has these four.
    shade: Type.Optional(Type.String({ enum: ['d', 'l'], description: '`d` at step 1, then alternating `l`, `d`, …' })),
    position_number: Type.Optional(PositionText('The step.')),
    description: Type.Optional(Type.String({ maxLength: 500 })),
    position_count: Type.Optional(
      Type.Integer({ minimum: 0, description: 'Transactions of the service at this step, whatever their status (D-44).' })
    ),
    total_orders: Type.Optional(Type.Integer({ minimum: 0, description: 'First entry only: transactions of the service.' }))
  },
  // The published document says which four every entry has (openapi-complete.ts).
  {
    $id: 'StatisticsEntry',
    description: 'The first entry of a service has 7 fields, every later one 4.',
    'x-doc-required': ['shade', 'position_number', 'description', 'position_count']
  }
)

const ServiceStatistics = Type.Object({ service: Type.Array(Ref(StatsEntry)) }, { $id: 'ServiceStatistics' })

export const StatsResponse = Type.Object(
  {
    service_stats: Type.Array(Ref(ServiceStatistics), { description: 'Services in creation order; entries in step order (D-44).' })
  },
  { $id: 'Statistics' }
)

/** The named schemas of the answers of the service operations. */
export const SERVICE_SCHEMAS = [
  ...SERVICE_VIEW_SCHEMAS,
  ServiceCreated,
  AddStepResponse,
  StepRemoved,
  StatsEntry,
  ServiceStatistics,
  StatsResponse
]
