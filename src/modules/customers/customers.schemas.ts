import Type, { type Static } from 'typebox'
import { EMAIL_MAX, Email, NewPassword } from '../../platform/credential-fields.js'
import { Key, LINE_PATTERN, Line, PathKey, Text, UNTRIMMED_TEXT_BOUND } from '../../platform/schemas.js'
import { NAME_MAX } from './customers.fields.js'
import { ZIP_PATTERN } from './zip-codes.js'

/** One line of text up to `maxLength` characters, without control characters (the text rule, schemas.ts). */
const SingleLine = Line

// Customer ids are opaque (D-30); one longer than this names no customer.
const ID_MAX = 64

export const CreateCustomerBody = Type.Object({
  email: Email(),
  zip: Type.String({
    pattern: ZIP_PATTERN,
    'x-error': 'must be five digits or ZIP+4 (12345-6789)',
    description: 'Five digits or ZIP+4; `city` and `state` come from a bundled US ZIP code database (D-31).'
  }),
  password: Type.Optional(
    NewPassword(
      'Optional: lets the customer sign in and use their e-mail and password as Basic credentials (D-10, D-31). 8 to 128 characters.'
    )
  )
})
export type CreateCustomerBody = Static<typeof CreateCustomerBody>

export const CustomerIdParams = Type.Object({
  customer_id: PathKey('customer_not_found', { description: 'The customer id.', 'x-doc-maxLength': ID_MAX })
})

const Phone = Type.Unsafe<number | string>({
  type: ['integer', 'string'],
  minimum: 0,
  maxLength: 30,
  pattern: '^\\s*(\\+?[0-9 ().-]+)?\\s*$',
  'x-error': 'must be a phone number: 7 to 15 digits, as a number or as text',
  description:
    'A number, or text of digits that may be grouped with spaces, dots, hyphens or parentheses and start with `+`. Stored and returned as 7 to 15 digits; empty text clears it (D-32).'
})

const Preference = (description: string) => Text(1000, { description })

const CardText = (maxLength: number, description: string) => Line(maxLength, { description })
const CardDigits = (description: string) =>
  Type.Unsafe<number | string>({
    type: ['number', 'string'],
    maxLength: 40,
    pattern: LINE_PATTERN,
    'x-error': 'must be a number or digit text',
    description
  })

/** Spec "Credit card": input only, never in a response (D-34). Each field is checked by the card rules. */
const CreditCard = Type.Object(
  {
    cc_name: Type.Optional(CardText(100, 'Name on the card.')),
    cc_number: Type.Optional(
      CardDigits('12 to 19 digits passing the Luhn check, as a number or as digit text (spaces or hyphens between groups allowed).')
    ),
    cc_expiration: Type.Optional(CardText(20, '`MM/YYYY`, not in the past and at most 20 years ahead (`invalid_card` otherwise).')),
    cc_cvv: Type.Optional(CardDigits('3 or 4 digits; as a number it cannot start with 0 (send such codes as text). Never stored.')),
    cc_zip: Type.Optional(CardText(20, 'Billing zip code, five digits.'))
  },
  {
    description:
      'All five fields together or 400 `partial_card`; a number failing Luhn or 12 to 19 digits, a past or malformed expiry, a code not of 3 or 4 digits or a zip not of five digits is 400 `invalid_card` (D-34). The number is stored only encrypted (AES-256-GCM), beside its last four digits and expiry; the security code is never stored.'
  }
)

const CustomerChanges = Type.Object({
  customer_id: Key('customer_not_found', ID_MAX, { minLength: 1, description: 'The customer to update; required.' }),
  // The 100-character limit is checked with the other fields (customers.changes.ts), so one answer
  // names every fault.
  customer_name: Type.Optional(
    SingleLine(UNTRIMMED_TEXT_BOUND, {
      description:
        'Full name of at most 100 characters (D-70, counted after trimming and joining runs of spaces), split at the first space: the first word is `first_name`, the rest `last_name`; empty clears both (D-32).',
      'x-doc-maxLength': NAME_MAX
    })
  ),
  email: Type.Optional(Email('Trimmed and lower-cased; must not be used by another customer (409 `email_taken`, D-32).')),
  phone: Type.Optional(Phone),
  preference: Type.Optional(Preference("The customer's preferences, free text of at most 1000 characters (D-70); empty clears them.")),
  preferences: Type.Optional(Preference('Accepted as `preference`; when both are sent they must be equal (D-32).')),
  address: Type.Optional(
    Type.Object({
      street: Type.Optional(SingleLine(200, { description: 'At most 200 characters.' })),
      apartment: Type.Optional(SingleLine(200, { description: 'At most 200 characters.' })),
      zip: Type.Optional(
        Type.String({
          pattern: `^$|${ZIP_PATTERN}`,
          'x-error': 'must be five digits or ZIP+4 (12345-6789)',
          description: 'Five digits or ZIP+4: re-derives `city` and `state` (D-32); empty clears zip, city and state.'
        })
      ),
      zipcode: Type.Optional(
        Type.String({
          pattern: `^$|${ZIP_PATTERN}`,
          'x-error': 'must be five digits or ZIP+4 (12345-6789)',
          description: 'Accepted as `zip`, the name the read shape gives it; when both are sent they must be equal.'
        })
      )
    })
  ),
  creditcard: Type.Optional(CreditCard)
})

export const UpdateCustomerBody = Type.Object({ customer: CustomerChanges })
export type UpdateCustomerBody = Static<typeof UpdateCustomerBody>
export type CustomerChanges = Static<typeof CustomerChanges>

const PhoneDigits = Type.String({ pattern: '^([0-9]{7,15})?$', description: 'Digits as text; empty when unset.' })
const Zip = Type.String({ pattern: `^$|${ZIP_PATTERN}`, description: 'Five digits or ZIP+4; empty when unset.' })
const Name = (description: string) => Type.String({ maxLength: NAME_MAX, description })

/** Spec "Customer, create response shape". */
export const CustomerCreateView = Type.Object(
  {
    customer_id: Type.String({ maxLength: ID_MAX }),
    first_name: Name('Empty when unset.'),
    last_name: Name('Empty when unset.'),
    email: Type.String({ maxLength: EMAIL_MAX }),
    phone: PhoneDigits,
    payment_customer_id: Type.String({ description: 'Set when a card is first saved; empty until then (D-34).' }),
    address: Type.Object({
      street_one: Type.String({ maxLength: 200 }),
      street_two: Type.String({ maxLength: 200 }),
      city: Type.String(),
      state: Type.String(),
      zip: Zip
    })
  },
  { $id: 'CustomerCreated', description: 'A customer as create answers it: address keys `street_one`, `street_two`, `zip`.' }
)

/** Spec "Customer, read and update response shape"; card data is never in it (D-34). */
export const CustomerView = Type.Object(
  {
    customer_id: Type.String({ maxLength: ID_MAX }),
    first_name: Name('Empty when unset.'),
    last_name: Name('Empty when unset.'),
    username: Type.String({ maxLength: EMAIL_MAX, description: 'The e-mail address (D-31).' }),
    email: Type.String({ maxLength: EMAIL_MAX }),
    phone: PhoneDigits,
    preference: Type.String({ maxLength: 1000 }),
    address: Type.Object({
      street: Type.String({ maxLength: 200 }),
      apartment: Type.String({ maxLength: 200 }),
      city: Type.String(),
      state: Type.String(),
      zipcode: Zip
    })
  },
  { $id: 'Customer', description: 'A customer as read and update answer it: `username` is the e-mail; never card data (D-34).' }
)

/** The named schemas of the customer record answers. */
export const CUSTOMER_SCHEMAS = [CustomerCreateView, CustomerView]
