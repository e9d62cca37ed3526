import { randomBytes } from 'node:crypto'
import type { Clock } from '../../common/clock.js'
import { hashPassword } from '../../common/crypto.js'
import { newId } from '../../common/ids.js'
import type { Database } from '../../db/database.js'
import { customersRepository } from './customers.repository.js'
import { nameKey } from './name-key.js'

/** A customer as the demo seed adds it (D-90); the address is a real US ZIP code with its city and state (D-31). */
export interface SeedCustomer {
  first_name: string
  last_name: string
  email: string
  phone: string
  preference: string
  street: string
  apartment: string
  city: string
  state: string
  zip: string
}

/** A password to print once: 16 random URL-safe characters (D-31 allows 8 to 128). */
function newPassword(): string {
  return randomBytes(12).toString('base64url')
}

/** Inserts a customer with a new password unless the e-mail is taken; returns the password when created. */
export async function seedCustomer(database: Database, clock: Clock, customer: SeedCustomer): Promise<string | null> {
  const customers = customersRepository(database)
  const email = customer.email.toLowerCase()
  if ((await customers.idByEmail(email)) !== undefined) return null
  const password = newPassword()
  // Hashed before the transaction: a slow hash must not hold SQLite's write lock.
  const passwordHash = await hashPassword(password)
  const now = clock.now()
  try {
    await database.unitOfWork.run((tx) =>
      customers.insert(tx, {
        id: newId('cus'),
        email,
        first_name: customer.first_name,
        last_name: customer.last_name,
        first_name_lc: nameKey(customer.first_name),
        last_name_lc: nameKey(customer.last_name),
        phone: customer.phone,
        preference: customer.preference,
        street: customer.street,
        apartment: customer.apartment,
        city: customer.city,
        state: customer.state,
        zip: customer.zip,
        password_hash: passwordHash,
        payment_customer_id: '',
        card_ciphertext: null,
        card_last4: null,
        card_expiration: null,
        created_at: now,
        updated_at: now
      })
    )
  } catch (error) {
    // Created by another seed since the check above: the unique e-mail index decided.
    if (database.dialect.isUniqueViolation(error)) return null
    throw error
  }
  return password
}
