// The wire shapes of the console's sign-in and staff accounts (D-15, D-16), as the server answers
// them; kept in step with its schemas by test/e2e/support/api-contract.ts like api-types.ts.

/** GET /console/config (public): what the console shows before and after sign-in (D-16, D-51). */
export interface ConsoleConfig {
  shop_name: string
  /** IANA zone of every time the API reads and writes (D-51). */
  time_zone: string
  /** True while no staff account exists: the first admin is made with the initial API key. */
  setup_needed: boolean
}

/** POST /console/session: the signed-in staff member; the cookie itself is HttpOnly (D-16). */
export interface ConsoleSession {
  staff_id: string
  name: string
  role: 'admin' | 'staff'
  csrf_token: string
}

/** A staff account as staff create, list and update answer it (D-15). */
export interface StaffView {
  staff_id: string
  email: string
  name: string
  role: 'admin' | 'staff'
  status: 'active' | 'disabled'
  created_at: string
}

export interface StaffListResponse {
  staff: StaffView[]
}
