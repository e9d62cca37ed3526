import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import { newId } from '../../common/ids.js'
import { wholeNumber } from '../../common/numbers.js'
import { type ReadMemo, readEveryTime } from '../../common/read-memo.js'
import type { Database } from '../../db/database.js'
import type { Caller, UseCaseRunner } from '../../platform/idempotency.js'
import { invalidField, problems } from '../../platform/problems.js'
import { type EventInput, type EventName, encodeEvents, parseEvents } from './events.js'
import { cleanServiceName, defaultImageTitle, serviceKeyOf, serviceNameKey, serviceNameProblem } from './names.js'
import { ServiceStatistics } from './service-statistics.js'
import { type ServicesRepository, servicesRepository } from './services.repository.js'
import type {
  AddStepBody,
  AddStepResponse,
  CreateServiceBody,
  MessageResponse,
  RemoveStepBody,
  ServiceView,
  StatsResponse
} from './services.schemas.js'
import { toServiceView } from './services.views.js'

export function eventsOf(input: readonly EventInput[] | undefined): EventName[] {
  if (input === undefined) return []
  const parsed = parseEvents(input)
  if ('unknownAt' in parsed) throw invalidField(`/events/${parsed.unknownAt}`, 'must be one of "email", "text", "trak"')
  return parsed.events
}

/**
 * A whole position from the body, or a 400 naming the field. A whole number too large to hold
 * exactly is past every service's last step: it is kept as such, so the caller's check against
 * the service says so (it is not told it is no whole number).
 */
export function positionOf(value: number | string, field: string): number {
  const position = wholeNumber(value)
  if (position !== undefined && position >= 1) return position
  if (position === undefined && (typeof value === 'number' ? Number.isInteger(value) && value > 0 : /^[0-9]+$/.test(value))) {
    return Number.MAX_SAFE_INTEGER
  }
  throw invalidField(field, 'must be a whole number from 1')
}

/** Services and their steps: create, add and remove steps, read a step, statistics (D-40 to D-44). */
export class ServicesService {
  private readonly repo: ServicesRepository
  private readonly statistics: ServiceStatistics

  constructor(
    private readonly database: Database,
    private readonly useCases: UseCaseRunner,
    private readonly clock: Clock,
    // How statistics are kept between polls: the module's factory decides (index.ts).
    private readonly statisticsMemo: ReadMemo<Static<typeof StatsResponse>> = readEveryTime()
  ) {
    this.repo = servicesRepository(database)
    this.statistics = new ServiceStatistics(this.repo, database)
  }

  /** Creates a service whose step 1 is `description` (spec Create service, D-40, D-41). */
  async create(body: CreateServiceBody, caller: Caller): Promise<Static<typeof MessageResponse>> {
    const name = cleanServiceName(body.service_name)
    const nameProblem = serviceNameProblem(name)
    if (nameProblem !== undefined) throw invalidField('/service_name', nameProblem)
    const events = eventsOf(body.events)
    const imageTitle = body.image_title === undefined ? defaultImageTitle(name) : body.image_title.trim()
    return this.useCases.run(caller, async (tx) => {
      if ((await this.repo.findByKey(tx, serviceNameKey(name), 'none')) !== undefined) throw problems.serviceExists()
      let serviceId: number
      try {
        serviceId = await this.repo.insertService(tx, {
          public_id: newId('svc'),
          name,
          name_key: serviceNameKey(name),
          image_title: imageTitle,
          created_at: this.clock.now()
        })
      } catch (error) {
        // Two creates of one name at once on PostgreSQL: the unique index decides.
        if (this.database.dialect.isUniqueViolation(error)) throw problems.serviceExists()
        throw error
      }
      await this.repo.insertStep(tx, {
        service_id: serviceId,
        position: 1,
        description: body.description,
        button_title: body.button_title ?? '',
        events: encodeEvents(events),
        expected_minutes: body.expected_minutes ?? null
      })
      return { message: 'successfully created' }
    })
  }

  /** Inserts a step at `position_number` (1 to steps+1), or appends it (D-42). */
  async addStep(body: AddStepBody, caller: Caller): Promise<Static<typeof AddStepResponse>> {
    const events = eventsOf(body.events)
    const requested = body.position_number === undefined ? undefined : positionOf(body.position_number, '/position_number')
    const serviceKey = serviceKeyOf(body.service_name)
    return this.useCases.run(caller, async (tx) => {
      // Locked for update: renumbering is atomic against other step changes and against moves.
      const service = await this.repo.findByKey(tx, serviceKey, 'update')
      if (service === undefined) throw problems.serviceNotFound()
      const position = requested ?? service.step_count + 1
      if (position > service.step_count + 1) {
        throw invalidField('/position_number', `must be from 1 to ${service.step_count + 1} for this service`)
      }
      await this.repo.shiftUp(tx, service.id, position)
      await this.repo.insertStep(tx, {
        service_id: service.id,
        position,
        description: body.description,
        button_title: body.button_title ?? '',
        events: encodeEvents(events),
        expected_minutes: body.expected_minutes ?? null
      })
      await this.repo.changeStepCount(tx, service.id, 1)
      return { service_name: service.name, description: body.description, position: String(position) }
    })
  }

  /** Removes a step no transaction is at, unless it is the only one; later steps move down (D-42). */
  async removeStep(body: RemoveStepBody, caller: Caller): Promise<Static<typeof MessageResponse>> {
    const position = removalPosition(body)
    const serviceKey = serviceKeyOf(body.service_name)
    return this.useCases.run(caller, async (tx) => {
      const service = await this.repo.findByKey(tx, serviceKey, 'update')
      if (service === undefined) throw problems.serviceNotFound()
      const step = position > service.step_count ? undefined : await this.repo.stepAt(tx, service.id, position)
      if (step === undefined) throw problems.stepNotFound(service.step_count)
      if (service.step_count === 1) throw problems.lastStep()
      // The counter is exact: moves hold the service row in share mode while they change it.
      if (step.order_count > 0) throw problems.stepInUse()
      await this.repo.deleteStep(tx, step.id)
      await this.repo.shiftDown(tx, service.id, position)
      await this.repo.changeStepCount(tx, service.id, -1)
      return { message: 'successfully removed' }
    })
  }

  /** The service view at one step (spec Get service step, D-43). */
  async step(serviceName: string, rawPosition: string): Promise<Static<typeof ServiceView>> {
    const key = serviceNameKey(serviceName)
    const position = /^[0-9]{1,9}$/.test(rawPosition) ? Number(rawPosition) : 0
    const row = await this.repo.stepView(key, position)
    if (row === undefined) throw problems.serviceNotFound()
    if (row.position === null) throw problems.stepNotFound(row.step_count)
    return toServiceView({ ...row, position: row.position })
  }

  /** Per-step order counts of every service (spec Get service statistics, D-44). */
  stats(): Promise<Static<typeof StatsResponse>> {
    return this.statisticsMemo.get('all', () => this.statistics.read())
  }
}

/** D-42: remove reads `position_number` or `position`; 400 when both differ or neither is sent. */
function removalPosition(body: RemoveStepBody): number {
  const fromNumber = body.position_number === undefined ? undefined : positionOf(body.position_number, '/position_number')
  const fromPosition = body.position === undefined ? undefined : positionOf(body.position, '/position')
  if (fromNumber === undefined && fromPosition === undefined) throw invalidField('/position_number', 'is required (or send position)')
  if (fromNumber !== undefined && fromPosition !== undefined && fromNumber !== fromPosition) {
    throw invalidField('/position', 'must equal position_number when both are sent')
  }
  return (fromNumber ?? fromPosition)!
}
