import Type, { type Static } from 'typebox'
import { Ref } from '../../platform/components.js'
import { Line, WholeNumberOrDigits } from '../../platform/schemas.js'

/** A cursor holds the folded names of a customer: its bound is far above any that can be. */
const CURSOR_MAX = 8192

export const ListCustomersBody = Type.Object({
  limit: Type.Optional(WholeNumberOrDigits(1, 100, 'At most this many customers, 1 to 100; default 20.')),
  cursor: Type.Optional(Line(CURSOR_MAX, { minLength: 1, description: '`next_cursor` of the previous page, as it was given.' }))
})
export type ListCustomersBody = Static<typeof ListCustomersBody>

const CustomerListEntry = Type.Object(
  {
    customer_id: Type.String({ maxLength: 64 }),
    customer_name: Type.String({ maxLength: 100, description: 'First and last name joined by one space (as in search, D-33).' }),
    customer_email: Type.String({ maxLength: 254 }),
    phone: Type.String({ pattern: '^([0-9]{7,15})?$', description: 'Digits only, as in the read shape; "" when there is none.' })
  },
  { $id: 'CustomerListEntry', description: 'A customer as the console lists them.' }
)

export const ListCustomersResponse = Type.Object(
  {
    customers: Type.Array(Ref(CustomerListEntry), {
      description: 'Ordered by last name, then first name (ignoring case and accents), then id, as search orders its hits (D-33).'
    }),
    next_cursor: Type.Union([Type.String(), Type.Null()], { description: 'Pass as `cursor` for the next page; null on the last.' })
  },
  { $id: 'CustomerPage' }
)

/** The named schemas of the list answer. */
export const LIST_SCHEMAS = [CustomerListEntry, ListCustomersResponse]
