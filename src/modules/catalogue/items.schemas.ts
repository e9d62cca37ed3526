import Type, { type Static } from 'typebox'
import { Ref } from '../../platform/components.js'
import { ItemKey, Line, WholeNumberOrDigits } from '../../platform/schemas.js'
import { ServiceKey } from './services.schemas.js'

/** D-45: price in cents, 0 to 10,000,000, as a number or digit text. */
const Price = WholeNumberOrDigits(0, 10_000_000, 'Whole cents, 0 to 10,000,000, as a number or digit text (D-45).')
const ItemId = ItemKey()
const Title = Line(500, { minLength: 1 })
const ImageUrl = Line(500, { description: "File name of the item's image." })
const Group = Line(100, { minLength: 1, description: 'The group the item is listed in; default `General` (D-45, D-46).' })

export const CreateItemBody = Type.Object({
  service_name: ServiceKey(),
  title: Title,
  price: Price,
  image_url: Type.Optional(ImageUrl),
  group: Type.Optional(Group)
})
export type CreateItemBody = Static<typeof CreateItemBody>

export const UpdateItemBody = Type.Object({
  item_id: ItemId,
  title: Type.Optional(Title),
  price: Type.Optional(Price),
  image_url: Type.Optional(ImageUrl),
  group: Type.Optional(Group)
})
export type UpdateItemBody = Static<typeof UpdateItemBody>

export const RemoveItemBody = Type.Object({ item_id: ItemId })
export type RemoveItemBody = Static<typeof RemoveItemBody>

/** Spec "Item". */
const Item = Type.Object(
  {
    item_id: Type.String({ pattern: '^[0-9]+$', description: 'Numeric text.' }),
    title: Type.String({ maxLength: 500 }),
    image_url: Type.String({ maxLength: 500 }),
    price: Type.String({ pattern: '^[0-9]+$', description: 'Whole cents as digit text (D-45).' })
  },
  { $id: 'Item', description: 'A priced item of a service (spec "Item").' }
)

/**
 * An item as the item operations answer it (D-45 "answers with the item"): exactly the spec's Item.
 * Its group is not added: decisions.md allows fields beyond the spec only where a rule says so, and
 * only D-46's `item_group` elements carry a group name.
 */
export const ItemResponse = Item

const ItemGroup = Type.Object(
  {
    group: Type.String({ maxLength: 100, description: 'The group name (D-46).' }),
    item: Type.Array(Ref(Item))
  },
  { $id: 'ItemGroup' }
)

export const ItemsResponse = Type.Object(
  {
    item: Type.Object({
      item_count: Type.Integer({ minimum: 0, description: 'Items of the service that are not removed.' }),
      service_name: Type.String({ maxLength: 100 })
    }),
    item_group: Type.Array(Ref(ItemGroup), { description: 'Groups in order of their first item; items by id (D-46).' })
  },
  { $id: 'ItemList', description: "A service's items in groups (D-46)." }
)

/** The named schemas of the item answers. */
export const ITEM_SCHEMAS = [Item, ItemGroup, ItemsResponse]
