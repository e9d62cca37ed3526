import Type from 'typebox'
import { Constant } from '../../platform/components.js'
import { Email, NewPassword } from '../../platform/credential-fields.js'
import { Line } from '../../platform/schemas.js'
import { RESET_REQUESTED_MESSAGE } from './password-reset.service.js'

export const SignInBody = Type.Object({
  email: Email('The e-mail address, trimmed and lower-cased before it is compared (D-35).'),
  password: Line(1024, { minLength: 1 })
})

export const SignInResponse = Type.Object(
  { status: Constant('success'), customer_id: Type.String({ maxLength: 64 }) },
  { $id: 'SignInResult', description: 'The signed-in customer; no token (spec Authentication).' }
)

export const ResetRequestBody = Type.Object({ email: Email('The e-mail address to send a reset link to, if a customer uses it (D-36).') })

export const MessageResponse = Type.Object(
  { message: Constant(RESET_REQUESTED_MESSAGE) },
  { $id: 'PasswordResetRequested', description: 'The same answer whether or not a customer uses the address (D-36).' }
)

export const ResetConfirmBody = Type.Object({
  token: Line(200, { minLength: 1, description: 'The token of the reset link (D-36).' }),
  password: NewPassword('The new password, 8 to 128 characters (D-37).')
})

export const StatusResponse = Type.Object(
  { status: Constant('success') },
  { $id: 'PasswordResetConfirmed', description: 'The password is set and the token spent (D-37).' }
)

/** The named schemas of the sign-in and reset answers. */
export const ACCESS_SCHEMAS = [SignInResponse, MessageResponse, StatusResponse]
