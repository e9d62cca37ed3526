import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { passwordInNfkc } from '../../platform/credential-fields.js'
import { callerOf } from '../../platform/idempotency.js'
import { operation } from '../../platform/schemas.js'
import { CreateCustomerBody, CustomerCreateView, CustomerIdParams, CustomerView, UpdateCustomerBody } from './customers.schemas.js'
import type { CustomersService } from './customers.service.js'

const tags = ['customers']

/** Creating a customer: open to every caller (D-12). */
export function customerCreateRoutes(app: App, customers: CustomersService): void {
  app.post(
    '/v1/customer/create',
    {
      preValidation: passwordInNfkc,
      schema: operation({
        id: 'createCustomer',
        summary: 'Create customer',
        description:
          'E-mail trimmed, lower-cased, at most 254 characters and unused (409 `email_taken`); zip five digits or ZIP+4, with `city` and `state` from a bundled US ZIP code database (400 `unknown_zip` when it is not in it); optional password of 8 to 128 characters, counted in Unicode NFKC, the form passwords are compared in (D-31). Answers the create shape: `street_one`, `street_two`, `zip`.',
        tags,
        body: CreateCustomerBody,
        response: Ref(CustomerCreateView),
        problems: ['email_taken', 'unknown_zip'],
        idempotent: true
      })
    },
    (request) => customers.create(request.body, callerOf(request))
  )
}

/** Reading and updating a customer record: the customer's own, or any for staff (D-11, D-12). */
export function customerRecordRoutes(app: App, customers: CustomersService): void {
  app.post(
    '/v1/customer/update',
    {
      schema: operation({
        id: 'updateCustomer',
        summary: 'Update customer',
        description:
          'Fields left out are unchanged; empty text clears a field. `customer_name` is split at the first space; `phone` is a number or digit text stored as 7 to 15 digits; `preference` and `preferences` are both accepted (400 if they differ); `address.zip` re-derives city and state; a changed e-mail must be unused (409) (D-32). A card is all five fields or none (D-34). A rejected update changes nothing. Answers the read shape, never card data. A customer may update only their own record (another id is 404, D-11).',
        tags,
        body: UpdateCustomerBody,
        response: Ref(CustomerView),
        problems: ['customer_not_found', 'email_taken', 'unknown_zip', 'partial_card', 'invalid_card'],
        idempotent: true
      })
    },
    (request) => customers.update(request.body, request.rawBody, callerOf(request))
  )

  app.post(
    '/v1/customer/:customer_id',
    {
      schema: operation({
        id: 'getCustomer',
        summary: 'Get customer',
        description:
          'The read shape: `username` is the e-mail, address keys `street`, `apartment`, `zipcode`; never card data. A customer may read only their own record (another id is 404, D-11).',
        tags,
        params: CustomerIdParams,
        response: Ref(CustomerView),
        problems: ['customer_not_found']
      })
    },
    (request) => customers.get(request.params.customer_id, request.principal)
  )
}
