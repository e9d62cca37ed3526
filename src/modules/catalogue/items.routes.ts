import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { callerOf } from '../../platform/idempotency.js'
import { operation } from '../../platform/schemas.js'
import { CreateItemBody, ItemResponse, ItemsResponse, RemoveItemBody, UpdateItemBody } from './items.schemas.js'
import type { ItemsService } from './items.service.js'
import { ServiceNameParams } from './services.schemas.js'

/** Reading a service's items: open to every caller (D-12). */
export function itemReadRoutes(app: App, items: ItemsService): void {
  app.post(
    '/v1/service/:service_name',
    {
      schema: operation({
        id: 'getItems',
        summary: 'Get items',
        description:
          "The items that can be put on a receipt for the service, in groups: groups in order of their first item's id, items by id; each group also carries its name in `group` (D-46). Group names are compared exactly as stored after trimming: `Tops` and `tops` are two groups. Prices are whole cents as digit text (D-45).",
        tags: ['services', 'items'],
        params: ServiceNameParams,
        response: Ref(ItemsResponse),
        problems: ['service_not_found']
      }),
      config: { sharedAnswer: true }
    },
    (request) => items.list(request.params.service_name)
  )
}

/** Managing items: staff only (D-12, D-45). */
export function itemStaffRoutes(app: App, items: ItemsService): void {
  app.post(
    '/v1/item/create',
    {
      schema: operation({
        id: 'createItem',
        summary: 'Create item',
        description:
          "Adds a priced item to a service (D-45). `price` is whole cents; `group` defaults to `General`. Answers with the item: exactly the spec's Item fields (the group shows in Get items, D-46).",
        tags: ['items'],
        body: CreateItemBody,
        response: Ref(ItemResponse),
        problems: ['service_not_found'],
        idempotent: true
      })
    },
    (request) => items.create(request.body, callerOf(request))
  )

  app.post(
    '/v1/item/update',
    {
      schema: operation({
        id: 'updateItem',
        summary: 'Update item',
        description: 'Changes the fields sent; others stay. Receipts keep the unit price they copied when the item was added (D-54).',
        tags: ['items'],
        body: UpdateItemBody,
        response: Ref(ItemResponse),
        problems: ['item_not_found'],
        idempotent: true
      })
    },
    (request) => items.update(request.body, callerOf(request))
  )

  app.post(
    '/v1/item/remove',
    {
      schema: operation({
        id: 'removeItem',
        summary: 'Remove item',
        description: 'Hides the item from the catalogue; receipts keep their lines (D-45). Answers with the item as it was.',
        tags: ['items'],
        body: RemoveItemBody,
        response: Ref(ItemResponse),
        problems: ['item_not_found'],
        idempotent: true
      })
    },
    (request) => items.remove(request.body, callerOf(request))
  )
}
