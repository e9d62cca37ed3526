import type { Config } from '../../config.js'
import type { AppContext } from '../../platform/app-context.js'
import type { App } from '../../platform/app-types.js'
import { callersScope } from '../../platform/callers-scope.js'
import { useSchemas } from '../../platform/components.js'
import { resetConfirmRoutes, resetPageRoutes, signInRoutes } from './access.routes.js'
import { ACCESS_SCHEMAS } from './access.schemas.js'
import { customerCreateRoutes, customerRecordRoutes } from './customers.routes.js'
import { CUSTOMER_SCHEMAS } from './customers.schemas.js'
import { CustomersService } from './customers.service.js'
import { customerListRoutes } from './list.routes.js'
import { LIST_SCHEMAS } from './list.schemas.js'
import { CustomerListService } from './list.service.js'
import { PasswordResetService } from './password-reset.service.js'
import { customerSearchRoutes } from './search.routes.js'
import { SEARCH_SCHEMAS } from './search.schemas.js'
import { SearchService } from './search.service.js'
import { SignInService } from './sign-in.service.js'

export { type Contact, contactSelect } from './contacts.repository.js'
export { customerLoginQuery } from './credentials.repository.js'
export { exportCustomers } from './customers.export.repository.js'
export { type SeedCustomer, seedCustomer } from './customers.seed.js'
export { nameKey } from './name-key.js'

/** What the customers module uses of the app context. */
interface CustomersDeps extends Pick<AppContext, 'database' | 'useCases' | 'clock' | 'dataKey' | 'auth'> {
  readonly config: Pick<Config, 'publicUrl'>
  readonly rateLimits: Pick<AppContext['rateLimits'], 'signIn'>
}

/** Customers: sign-in, password reset, create, read, update, search, list. Who may call what is decided here (D-12). */
export function customersModule(context: CustomersDeps) {
  const customers = new CustomersService(context.database, context.useCases, context.clock, context.dataKey)
  const search = new SearchService(context.database)
  const list = new CustomerListService(context.database)
  const signIn = new SignInService(context.auth)
  const reset = new PasswordResetService(context.database, context.clock, context.dataKey, context.auth, context.config.publicUrl)
  return async (app: App): Promise<void> => {
    // The named schemas its answers refer to, for every scope below (platform/schemas.ts `useSchemas`).
    useSchemas(app, [...ACCESS_SCHEMAS, ...CUSTOMER_SCHEMAS, ...SEARCH_SCHEMAS, ...LIST_SCHEMAS])
    // Every caller: app keys, customers, staff.
    await app.register(
      callersScope(context.auth, ['app', 'customer', 'staff'], (open) => {
        signInRoutes(open, signIn, reset, context.rateLimits.signIn)
        resetConfirmRoutes(open, reset, context.rateLimits.signIn)
        customerCreateRoutes(open, customers)
      })
    )
    // Customers (their own record only, D-11) and staff.
    await app.register(callersScope(context.auth, ['customer', 'staff'], (own) => customerRecordRoutes(own, customers)))
    // Staff and admin keys only.
    await app.register(
      callersScope(context.auth, ['staff'], (staff) => {
        customerSearchRoutes(staff, search)
        customerListRoutes(staff, list)
      })
    )
    // The page of the reset link and its own submit endpoint, outside /v1: the token is their
    // credential, since a browser following an e-mailed link holds no API key (D-37).
    resetPageRoutes(app, reset, context.rateLimits.signIn)
  }
}
