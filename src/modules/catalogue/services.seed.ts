import type { Clock } from '../../common/clock.js'
import { newId } from '../../common/ids.js'
import type { Database } from '../../db/database.js'
import { type EventName, encodeEvents, parseEvents } from './events.js'
import { itemsRepository } from './items.repository.js'
import { cleanServiceName, defaultImageTitle, serviceNameKey, serviceNameProblem } from './names.js'
import { servicesRepository } from './services.repository.js'

/** A service as the demo seed adds it (D-90): its steps in order (D-41) and its priced items (D-45). */
export interface SeedService {
  name: string
  steps: { description: string; button_title: string; events: EventName[] }[]
  items: { group: string; title: string; price_cents: number; image_url: string }[]
}

// D-45, D-70: the limits the HTTP operations enforce, so the demo data could have been sent over HTTP.
const MAX_PRICE_CENTS = 10_000_000
const MAX_TEXT = 500

/** Throws when the data breaks a rule the API enforces (a mistake in the seed data, not a user error). */
function checkService(service: SeedService): void {
  const problem = serviceNameProblem(cleanServiceName(service.name))
  if (problem !== undefined) throw new Error(`demo service name ${JSON.stringify(service.name)} ${problem}`)
  if (service.steps.length < 1) throw new Error(`demo service ${service.name} has no steps`)
  for (const step of service.steps) {
    if (step.description.length > MAX_TEXT || step.button_title.length > MAX_TEXT)
      throw new Error(`demo step of ${service.name} is too long`)
    if ('unknownAt' in parseEvents(step.events)) throw new Error(`demo step of ${service.name} has an unknown event`)
  }
  for (const item of service.items) {
    if (!Number.isSafeInteger(item.price_cents) || item.price_cents < 0 || item.price_cents > MAX_PRICE_CENTS) {
      throw new Error(`demo item ${item.title} has a price out of range`)
    }
  }
}

/**
 * Creates one service with all its steps and items in one database transaction, so a service is
 * there whole or not at all; an existing service of that name (any case, D-40) is left as it is.
 * Returns whether it was created.
 */
export async function seedService(database: Database, clock: Clock, service: SeedService): Promise<boolean> {
  checkService(service)
  const services = servicesRepository(database)
  const items = itemsRepository(database)
  const name = cleanServiceName(service.name)
  const key = serviceNameKey(name)
  try {
    return await database.unitOfWork.run(async (tx) => {
      if ((await services.findByKey(tx, key, 'none')) !== undefined) return false
      const now = clock.now()
      const serviceId = await services.insertService(tx, {
        public_id: newId('svc'),
        name,
        name_key: key,
        image_title: defaultImageTitle(name),
        created_at: now
      })
      for (const [index, step] of service.steps.entries()) {
        await services.insertStep(tx, {
          service_id: serviceId,
          position: index + 1,
          description: step.description,
          button_title: step.button_title,
          events: encodeEvents(step.events),
          expected_minutes: null
        })
        // The service row starts with one step; step_count stays equal to the step rows (catalogue.table.ts).
        if (index > 0) await services.changeStepCount(tx, serviceId, 1)
      }
      for (const item of service.items) {
        await items.insert(tx, {
          service_id: serviceId,
          title: item.title,
          price_cents: item.price_cents,
          image_url: item.image_url,
          group_name: item.group,
          created_at: now
        })
      }
      return true
    })
  } catch (error) {
    // Another seed created the same service at the same moment: the unique name index decided.
    if (database.dialect.isUniqueViolation(error)) return false
    throw error
  }
}
