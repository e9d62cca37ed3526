import Type from 'typebox'
import { Line } from '../../platform/schemas.js'
import { Email, NewPassword } from './customers.schemas.js'

export const SignInBody = Type.Object({
  email: Email('The e-mail address, trimmed and lower-cased before it is compared (D-35).'),
  password: Line(1024, { minLength: 1 })
})

export const SignInResponse = Type.Object({
  status: Type.String({ description: '`success`.' }),
  customer_id: Type.String()
})

export const ResetRequestBody = Type.Object({ email: Email('The e-mail address to send a reset link to, if a customer uses it (D-36).') })

export const MessageResponse = Type.Object({ message: Type.String() })

export const ResetConfirmBody = Type.Object({
  token: Line(200, { minLength: 1, description: 'The token of the reset link (D-36).' }),
  password: NewPassword('The new password, 8 to 128 characters (D-37).')
})

export const StatusResponse = Type.Object({ status: Type.String({ description: '`success`.' }) })
