import type { Static } from 'typebox'
import type { Authenticator } from '../../platform/auth.js'
import { emailOf } from '../../platform/credential-fields.js'
import { problems } from '../../platform/problems.js'
import type { SignInBody, SignInResponse } from './access.schemas.js'

/** Customer sign-in (D-35): checks an e-mail and password, answers the customer id. */
export class SignInService {
  constructor(private readonly auth: Authenticator) {}

  /**
   * `{"status": "success", "customer_id": …}`, or 401 `invalid_login` alike for an unknown e-mail
   * and a wrong password: the authenticator spends a slow hash on both, and turns to 429 after 10
   * failures for one e-mail in 15 minutes (D-14).
   */
  async signIn(body: Static<typeof SignInBody>): Promise<Static<typeof SignInResponse>> {
    const email = emailOf(body.email, '/email')
    const customerId = await this.auth.checkCustomerPassword(email, body.password)
    if (customerId === null) throw problems.invalidLogin()
    return { status: 'success', customer_id: customerId }
  }
}
