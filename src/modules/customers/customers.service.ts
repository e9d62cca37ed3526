import type { Static } from 'typebox'
import type { Clock } from '../../common/clock.js'
import { hashPassword } from '../../common/crypto.js'
import { newId } from '../../common/ids.js'
import type { Database } from '../../db/database.js'
import { emailOf } from '../../platform/credential-fields.js'
import type { Caller, UseCaseRunner } from '../../platform/idempotency.js'
import type { Principal } from '../../platform/principal.js'
import { problems } from '../../platform/problems.js'
import { checkCard, type SealedCard, sealCard } from '../payments/index.js'
import { planChanges } from './customers.changes.js'
import { placeOf } from './customers.fields.js'
import { type CustomersRepository, type CustomerUpdate, customersRepository } from './customers.repository.js'
import type { CreateCustomerBody, CustomerChanges, CustomerCreateView, CustomerView, UpdateCustomerBody } from './customers.schemas.js'
import { toCustomerCreateView, toCustomerView } from './customers.views.js'
import { cardNumberDigits } from './raw-number.js'
import { loadZipDirectory, type ZipDirectory } from './zip-codes.js'

// Ids never hold control characters, and PostgreSQL cannot even compare text holding NUL.
const ID_FORM = /^[^\u0000-\u001F\u007F-\u009F]+$/

/**
 * D-11: a customer sees only their own record; any other id reads as one that does not exist,
 * as does an id no customer could have.
 */
function mayRead(principal: Principal, customerId: string): boolean {
  return ID_FORM.test(customerId) && (principal.kind !== 'customer' || principal.customerId === customerId)
}

/** Customer records: create, read, update with a payment card (D-30 to D-32, D-34). */
export class CustomersService {
  private readonly repo: CustomersRepository

  constructor(
    private readonly database: Database,
    private readonly useCases: UseCaseRunner,
    private readonly clock: Clock,
    private readonly dataKey: Buffer,
    // D-31: read as the app is built, so damaged data stops the start instead of failing a request.
    private readonly zips: ZipDirectory = loadZipDirectory()
  ) {
    this.repo = customersRepository(database)
  }

  /** D-31: a customer with an unused e-mail, city and state from the zip, and an optional password. */
  async create(body: CreateCustomerBody, caller: Caller): Promise<Static<typeof CustomerCreateView>> {
    const email = emailOf(body.email, '/email')
    const place = placeOf(this.zips, body.zip, '/zip')
    // The slow hash runs before the transaction: on SQLite an open transaction holds every writer up.
    const passwordHash = body.password === undefined ? null : await hashPassword(body.password)
    return this.useCases.run(caller, async (tx) => {
      if ((await this.repo.idByEmail(email, tx)) !== undefined) throw problems.emailTaken()
      const now = this.clock.now()
      const row = {
        id: newId('cus'),
        email,
        first_name: '',
        last_name: '',
        first_name_lc: '',
        last_name_lc: '',
        phone: '',
        preference: '',
        street: '',
        apartment: '',
        city: place.city,
        state: place.state,
        zip: body.zip,
        password_hash: passwordHash,
        payment_customer_id: '',
        card_ciphertext: null,
        card_last4: null,
        card_expiration: null,
        created_at: now,
        updated_at: now
      }
      await this.uniqueEmail(() => this.repo.insert(tx, row))
      return toCustomerCreateView(row)
    })
  }

  /** The read shape of one customer; another customer's id is 404 as for a missing one (D-11). */
  async get(customerId: string, principal: Principal): Promise<Static<typeof CustomerView>> {
    if (!mayRead(principal, customerId)) throw problems.customerNotFound()
    const row = await this.repo.find(customerId)
    if (row === undefined) throw problems.customerNotFound()
    return toCustomerView(row)
  }

  /**
   * D-32 update, with a card per D-34. Every field and the card are checked before the
   * transaction, and the e-mail's uniqueness inside it, so a rejected update changes nothing.
   */
  async update(body: UpdateCustomerBody, rawBody: string | undefined, caller: Caller): Promise<Static<typeof CustomerView>> {
    const input = body.customer
    const changes = planChanges(input, this.zips)
    const card = this.cardOf(input, rawBody)
    if (!mayRead(caller.principal, input.customer_id)) throw problems.customerNotFound()
    return this.useCases.run(caller, async (tx) => {
      const current = await this.repo.findForUpdate(tx, input.customer_id)
      if (current === undefined) throw problems.customerNotFound()
      if (changes.email !== undefined && changes.email !== current.email) {
        if ((await this.repo.idByEmail(changes.email, tx)) !== undefined) throw problems.emailTaken()
      }
      const set: CustomerUpdate = { ...changes }
      if (card !== undefined) {
        Object.assign(set, card)
        // D-34: the first saved card gives the customer an id at the payment processor.
        if (current.payment_customer_id === '') set.payment_customer_id = newId('pay')
      }
      if (Object.keys(set).length === 0) return toCustomerView(current)
      set.updated_at = this.clock.now()
      await this.uniqueEmail(() => this.repo.update(tx, current.id, set))
      return toCustomerView({ ...current, ...changes, payment_customer_id: set.payment_customer_id ?? current.payment_customer_id })
    })
  }

  /** The checked and sealed card of an update, if it sends one (D-34). */
  private cardOf(input: CustomerChanges, rawBody: string | undefined): SealedCard | undefined {
    const card = input.creditcard
    if (card === undefined) return undefined
    // A JSON number beyond 2^53 lost digits in parsing; its exact digits are read from the raw body.
    const exact =
      typeof card.cc_number === 'number' && !Number.isSafeInteger(card.cc_number) ? cardNumberDigits(rawBody, card.cc_number) : undefined
    return sealCard(this.dataKey, checkCard(card, this.clock.now(), exact))
  }

  /** Runs a write; a unique violation (two customers claiming one e-mail at once) is 409 (D-31, D-32). */
  private async uniqueEmail<T>(write: () => Promise<T>): Promise<T> {
    try {
      return await write()
    } catch (error) {
      if (this.database.dialect.isUniqueViolation(error)) throw problems.emailTaken()
      throw error
    }
  }
}
