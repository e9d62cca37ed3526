/** `customers`: one row per customer; card data only as ciphertext beside last four and expiry (D-34). */
export interface CustomersTable {
  id: string
  email: string
  first_name: string
  last_name: string
  // Folded copies for search and its order (D-33, name-key.ts); binary collation on PostgreSQL.
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
 * `customer_search_terms`: each 1 to 8 code-point prefix of each search term of a customer (name
 * words, the e-mail, the suffixes of the phone digits), with the term and the customer's place in
 * the hit order (D-33). Written only by triggers on `customers` (migration 0016); read by
 * search.repository.ts.
 */
export interface CustomerSearchTermsTable {
  prefix: string
  /** Last name key, first name key and id, U+0001 between: sorts as the hits are ordered. */
  order_key: string
  term: string
  customer_id: string
}

/** `password_reset_tokens`: single-use, one-hour tokens, stored hashed (D-36). */
export interface PasswordResetTokensTable {
  token_hash: string
  customer_id: string
  created_at: number
  expires_at: number
  used_at: number | null
}
