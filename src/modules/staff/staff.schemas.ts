import Type from 'typebox'
import { Constant, Instant, Ref } from '../../platform/components.js'
import { EMAIL_MAX, Email, NewPassword } from '../../platform/credential-fields.js'
import { Key, Line, UNTRIMMED_TEXT_BOUND } from '../../platform/schemas.js'
import { STAFF_NAME_MAX } from './staff.fields.js'
import type { StaffRole, StaffStatus } from './staff.table.js'

const ROLES: readonly StaffRole[] = ['admin', 'staff']
const STATUSES: readonly StaffStatus[] = ['active', 'disabled']

const Role = Type.Unsafe<StaffRole>({
  type: 'string',
  enum: [...ROLES],
  'x-error': 'must be admin or staff',
  description: '`admin` (may also manage staff users, D-18) or `staff`.'
})

const Status = Type.Unsafe<StaffStatus>({
  type: 'string',
  enum: [...STATUSES],
  'x-error': 'must be active or disabled',
  description: '`active`, or `disabled`: cannot sign in, and their sessions end at once (D-15).'
})

// The 100 apply to the name as stored (NFC, trimmed, one space between words): the document states them.
const Name = (description: string) => Line(UNTRIMMED_TEXT_BOUND, { description, 'x-doc-maxLength': STAFF_NAME_MAX })

const StaffPassword = (description: string) => NewPassword(`${description} 8 to 128 characters, hashed as customers' passwords (D-15).`)

export const CreateStaffBody = Type.Object({
  email: Email(
    'Trimmed and lower-cased; unused by any other staff user (409 `email_taken`, D-15). The rules of customer e-mail addresses (D-31).'
  ),
  name: Name('1 to 100 characters after trimming (D-15).'),
  role: Role,
  password: Type.Optional(StaffPassword('Optional: without it an invitation e-mail is sent with a link to set one (D-15).'))
})

export const UpdateStaffBody = Type.Object({
  staff_id: Key('staff_not_found', 64, {
    minLength: 1,
    description: 'The staff user to change (404 `staff_not_found` for an unknown id).'
  }),
  name: Type.Optional(Name('1 to 100 characters after trimming.')),
  role: Type.Optional(Role),
  status: Type.Optional(Status),
  password: Type.Optional(StaffPassword('A new password; ends every session of the user at once (D-15).'))
})

export const StaffView = Type.Object(
  {
    staff_id: Type.String({ maxLength: 64, description: 'Opaque id.' }),
    email: Type.String({ maxLength: EMAIL_MAX }),
    name: Type.String({ maxLength: STAFF_NAME_MAX }),
    role: Role,
    status: Status,
    created_at: Instant('When the user was made, ISO-8601 UTC.')
  },
  { $id: 'StaffUser', description: 'A staff user (D-15); never a password or its hash.' }
)

export const StaffList = Type.Object(
  { staff: Type.Array(Ref(StaffView), { description: 'Every staff user, ordered by name.' }) },
  { $id: 'StaffUsers', description: 'All staff users, active and disabled (D-15).' }
)

export const SessionBody = Type.Object({
  email: Email("The staff user's e-mail address, trimmed and lower-cased before it is compared."),
  password: Line(1024, { minLength: 1 })
})

export const SessionView = Type.Object(
  {
    staff_id: Type.String({ maxLength: 64 }),
    name: Type.String({ maxLength: STAFF_NAME_MAX }),
    role: Role,
    csrf_token: Type.String({
      maxLength: 64,
      description: 'Send it as `X-CSRF-Token` with every /v1 request of this session (D-16); answered only here.'
    })
  },
  { $id: 'ConsoleSession', description: 'The signed-in staff user and the CSRF token of the session (D-16).' }
)

export const SessionOwner = Type.Object(
  { staff_id: Type.String({ maxLength: 64 }), name: Type.String({ maxLength: STAFF_NAME_MAX }), role: Role },
  { $id: 'ConsoleSessionOwner', description: 'The staff user of a live console session (D-16).' }
)

export const SetPasswordBody = Type.Object({
  token: Line(200, { minLength: 1, description: 'The token of the set-password link (D-15).' }),
  password: StaffPassword('The password to set.')
})

export const ConsoleStatus = Type.Object({ status: Constant('success') }, { $id: 'ConsoleStatus', description: 'Done (D-16).' })

export const ConsoleConfig = Type.Object(
  {
    shop_name: Type.String({ maxLength: 100, description: 'SHOP_NAME (D-63).' }),
    time_zone: Type.String({ description: 'TIME_ZONE: the IANA zone every date and time of the API is written in (D-02).' }),
    setup_needed: Type.Boolean({
      description: 'True while there is no active admin staff user: the first one is still to be made (README "First sign-in").'
    })
  },
  { $id: 'ConsoleConfig', description: 'What the console needs before anyone signs in.' }
)

/** The named schemas of the staff module's answers. */
export const STAFF_SCHEMAS = [StaffView, StaffList, SessionView, SessionOwner, ConsoleStatus, ConsoleConfig]
