import type { Static } from 'typebox'
import type { Database } from '../../db/database.js'
import type { Caller, UseCaseRunner } from '../../platform/idempotency.js'
import { invalidField, problems } from '../../platform/problems.js'
import { type CatalogueEditRepository, catalogueEditRepository } from './catalogue-edit.repository.js'
import type { CatalogueResponse, CatalogueService, ServiceUpdateBody, StepUpdateBody } from './catalogue-edit.schemas.js'
import { toCatalogueServiceView, toCatalogueView } from './catalogue-edit.views.js'
import { encodeEvents } from './events.js'
import { cleanServiceName, serviceKeyOf, serviceNameKey, serviceNameProblem } from './names.js'
import { type ServicesRepository, servicesRepository } from './services.repository.js'
import { eventsOf, positionOf } from './services.service.js'

type ServiceAnswer = Static<typeof CatalogueService>

/**
 * Staff edit what they built (D-47): the whole catalogue in one read, a service's name and image
 * title, a step's texts, events and expected minutes (D-48). Orders point at service and step rows
 * by id, so they keep their service and step; every view reads names and texts from those rows, so
 * an edit shows at once (statistics through the texts version, step-texts.ts).
 */
export class CatalogueEditService {
  private readonly repo: CatalogueEditRepository
  private readonly services: ServicesRepository

  constructor(
    private readonly database: Database,
    private readonly useCases: UseCaseRunner
  ) {
    this.repo = catalogueEditRepository(database)
    this.services = servicesRepository(database)
  }

  /** Every service with all its steps, in creation order (D-47). */
  async list(): Promise<Static<typeof CatalogueResponse>> {
    return toCatalogueView(await this.repo.all())
  }

  /** Renames a service (D-40 rules, 409 `service_exists`) and/or sets its image title. */
  async updateService(body: ServiceUpdateBody, caller: Caller): Promise<ServiceAnswer> {
    const key = serviceKeyOf(body.service_name)
    const newName = body.new_name === undefined ? undefined : cleanServiceName(body.new_name)
    if (newName !== undefined) {
      const problem = serviceNameProblem(newName)
      if (problem !== undefined) throw invalidField('/new_name', problem)
    }
    const imageTitle = body.image_title?.trim()
    return this.useCases.run(caller, async (tx) => {
      // Locked for update: a rename is atomic against step changes and moves of its orders.
      const service = await this.services.findByKey(tx, key, 'update')
      if (service === undefined) throw problems.serviceNotFound()
      const current = await this.repo.ofService(tx, service.id)
      const name = newName ?? service.name
      const nameKey = serviceNameKey(name)
      if (nameKey !== key && (await this.repo.nameTaken(tx, nameKey, service.id))) throw problems.serviceExists()
      const title = imageTitle ?? current[0]!.image_title
      if (name === service.name && title === current[0]!.image_title) return toCatalogueServiceView(current)
      try {
        await this.repo.updateService(tx, { id: service.id, name, key: nameKey, imageTitle: title })
      } catch (error) {
        // Two renames to one name at once on PostgreSQL: the unique index decides.
        if (this.database.dialect.isUniqueViolation(error)) throw problems.serviceExists()
        throw error
      }
      return toCatalogueServiceView(await this.repo.ofService(tx, service.id))
    })
  }

  /** Changes the fields sent of one step; `events` replaces its events, `expected_minutes: null` clears it. */
  async updateStep(body: StepUpdateBody, caller: Caller): Promise<ServiceAnswer> {
    const key = serviceKeyOf(body.service_name)
    const position = positionOf(body.position_number, '/position_number')
    const events = body.events === undefined ? undefined : encodeEvents(eventsOf(body.events))
    return this.useCases.run(caller, async (tx) => {
      // Locked for update, as add and remove step: the position read stays the step's until commit.
      const service = await this.services.findByKey(tx, key, 'update')
      if (service === undefined) throw problems.serviceNotFound()
      const step = position > service.step_count ? undefined : await this.repo.stepAt(tx, service.id, position)
      if (step === undefined) throw problems.stepNotFound(service.step_count)
      await this.repo.updateStep(tx, {
        id: step.id,
        description: body.description ?? step.description,
        button_title: body.button_title ?? step.button_title,
        events: events ?? step.events,
        expected_minutes: body.expected_minutes === undefined ? step.expected_minutes : body.expected_minutes
      })
      return toCatalogueServiceView(await this.repo.ofService(tx, service.id))
    })
  }
}
