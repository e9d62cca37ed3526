import type { Static } from 'typebox'
import type { StaffRow } from './staff.repository.js'
import type { StaffView } from './staff.schemas.js'

/** The staff view of D-15: `created_at` in ISO-8601 UTC. */
export function toStaffView(row: StaffRow): Static<typeof StaffView> {
  return {
    staff_id: row.id,
    email: row.email,
    name: row.name,
    role: row.role,
    status: row.status,
    created_at: new Date(row.created_at).toISOString()
  }
}
