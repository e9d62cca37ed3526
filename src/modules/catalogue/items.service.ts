import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import { wholeNumber } from '../../common/numbers.js'
import { type ReadMemo, readEveryTime } from '../../common/read-memo.js'
import type { Database } from '../../db/database.js'
import type { Caller, UseCaseRunner } from '../../platform/idempotency.js'
import { invalidField, problems } from '../../platform/problems.js'
import { type ItemsRepository, itemsRepository } from './items.repository.js'
import type { CreateItemBody, ItemResponse, ItemsResponse, RemoveItemBody, UpdateItemBody } from './items.schemas.js'
import { toItemsView, toItemView } from './items.views.js'
import { serviceKeyOf, serviceNameKey } from './names.js'
import { type ServicesRepository, servicesRepository } from './services.repository.js'

const MAX_PRICE_CENTS = 10_000_000

/** D-45: whole cents from 0 to 10,000,000. */
function priceOf(value: number | string): number {
  const cents = wholeNumber(value)
  if (cents === undefined || cents > MAX_PRICE_CENTS) throw invalidField('/price', 'must be whole cents from 0 to 10000000')
  return cents
}

/** An item id as numeric text (or a number); anything else names no item. */
function itemIdOf(value: string | number): number {
  const id = wholeNumber(value)
  if (id === undefined || id < 1) throw problems.itemNotFound()
  return id
}

function groupOf(raw: string): string {
  const group = raw.trim()
  if (group === '') throw invalidField('/group', 'must not be blank')
  return group
}

/** The priced items of services (D-45, D-46). */
export class ItemsService {
  private readonly items: ItemsRepository
  private readonly services: ServicesRepository

  constructor(
    database: Database,
    private readonly useCases: UseCaseRunner,
    private readonly clock: Clock,
    // How item lists are kept between calls: the module's factory decides (index.ts).
    private readonly lists: ReadMemo<Static<typeof ItemsResponse>> = readEveryTime()
  ) {
    this.items = itemsRepository(database)
    this.services = servicesRepository(database)
  }

  /** The visible items of a service, grouped (spec Get items). */
  async list(serviceName: string): Promise<Static<typeof ItemsResponse>> {
    const key = serviceNameKey(serviceName)
    return this.lists.get(key, async () => {
      const rows = await this.items.ofService(key)
      if (rows.length === 0) throw problems.serviceNotFound()
      return toItemsView(rows)
    })
  }

  async create(body: CreateItemBody, caller: Caller): Promise<Static<typeof ItemResponse>> {
    const price = priceOf(body.price)
    const title = body.title.trim()
    if (title === '') throw invalidField('/title', 'must not be blank')
    const group = body.group === undefined ? 'General' : groupOf(body.group)
    const serviceKey = serviceKeyOf(body.service_name)
    return this.useCases.run(caller, async (tx) => {
      const service = await this.services.findByKey(tx, serviceKey, 'none')
      if (service === undefined) throw problems.serviceNotFound()
      const id = await this.items.insert(tx, {
        service_id: service.id,
        title,
        price_cents: price,
        image_url: body.image_url?.trim() ?? '',
        group_name: group,
        created_at: this.clock.now()
      })
      return toItemView({ id, title, image_url: body.image_url?.trim() ?? '', price_cents: price })
    })
  }

  /** Changes the fields sent; left-out fields stay. Receipts keep the price they copied (D-54). */
  async update(body: UpdateItemBody, caller: Caller): Promise<Static<typeof ItemResponse>> {
    const id = itemIdOf(body.item_id)
    const changes: Partial<{ title: string; price_cents: number; image_url: string; group_name: string }> = {}
    if (body.title !== undefined) {
      changes.title = body.title.trim()
      if (changes.title === '') throw invalidField('/title', 'must not be blank')
    }
    if (body.price !== undefined) changes.price_cents = priceOf(body.price)
    if (body.image_url !== undefined) changes.image_url = body.image_url.trim()
    if (body.group !== undefined) changes.group_name = groupOf(body.group)
    return this.useCases.run(caller, async (tx) => {
      const item = await this.items.find(tx, id)
      if (item === undefined) throw problems.itemNotFound()
      if (Object.keys(changes).length > 0) await this.items.update(tx, id, changes, this.clock.now())
      return toItemView({ ...item, ...changes })
    })
  }

  /** Hides the item from the catalogue; receipts keep their lines (D-45). */
  async remove(body: RemoveItemBody, caller: Caller): Promise<Static<typeof ItemResponse>> {
    const id = itemIdOf(body.item_id)
    return this.useCases.run(caller, async (tx) => {
      const item = await this.items.find(tx, id)
      if (item === undefined) throw problems.itemNotFound()
      await this.items.markRemoved(tx, id, this.clock.now())
      return toItemView(item)
    })
  }
}
