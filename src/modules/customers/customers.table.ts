/** `customers`: one row per customer; card data only as ciphertext beside last four and expiry (D-34). */
export interface CustomersTable {
  id: string
  email: string
  first_name: string
  last_name: string
  // Lower-cased copies for prefix search (D-33), indexed; binary collation on PostgreSQL.
  first_name_lc: string
  last_name_lc: string
  phone: string
  preference: string
  street: string
  apartment: string
  city: string
  state: string
  zip: string
  password_hash: string | null
  payment_customer_id: string
  card_ciphertext: string | null
  card_last4: string | null
  card_expiration: string | null
  created_at: number
  updated_at: number
}

/**
 * `customer_name_prefixes`: each 1 to 8 code-point prefix of a customer's lower-cased first and
 * last name, with the hit's sort keys and fields, for one-word search (D-33). Written only by
 * triggers on `customers` (migration 0008); read by search.repository.ts.
 */
export interface CustomerNamePrefixesTable {
  prefix: string
  last_name_lc: string
  first_name_lc: string
  customer_id: string
  first_name: string
  last_name: string
  email: string
}

/** `password_reset_tokens`: single-use, one-hour tokens, stored hashed (D-36). */
export interface PasswordResetTokensTable {
  token_hash: string
  customer_id: string
  created_at: number
  expires_at: number
  used_at: number | null
}
