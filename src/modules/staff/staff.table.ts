import type { StaffRole } from '../../platform/principal.js'

export type { StaffRole }

/** Whether a staff user may sign in (D-15). */
export type StaffStatus = 'active' | 'disabled'

/** `staff_users`: the people who work in the shop (D-15); passwords only as slow salted hashes. */
export interface StaffUsersTable {
  id: string
  // Trimmed and lower-cased, unique among staff users.
  email: string
  name: string
  role: StaffRole
  status: StaffStatus
  // Null until the user sets one through their invitation link.
  password_hash: string | null
  created_at: number
  updated_at: number
}

/** `staff_sessions`: console sessions (D-16); the token and its CSRF token only as SHA-256. */
export interface StaffSessionsTable {
  token_hash: string
  staff_id: string
  csrf_hash: string
  created_at: number
  // Moved forward at most about once a minute, so idle expiry holds across processes.
  last_seen_at: number
}

/** `staff_password_tokens`: single-use, 72-hour set-password links (D-15, D-36), stored hashed. */
export interface StaffPasswordTokensTable {
  token_hash: string
  staff_id: string
  created_at: number
  expires_at: number
  used_at: number | null
}
