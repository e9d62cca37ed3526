/** Roles an API key may hold (D-10); the api-keys module stores them. */
export type ApiKeyRole = 'admin' | 'staff' | 'app'

/** How a caller is named in history entries (D-56); orders' `Actor` adds the system. */
export type CallerActor = 'customer' | ApiKeyRole

/** Who is calling, as established from the request's Basic credentials (D-10). */
export type Principal =
  | { readonly kind: 'key'; readonly role: ApiKeyRole; readonly keyId: string }
  | { readonly kind: 'customer'; readonly customerId: string }

/** The caller classes of D-12's table; admin may call everything staff may. */
export type CallerClass = 'app' | 'customer' | 'staff'

/** The caller class a principal belongs to in D-12. */
export function callerClass(principal: Principal): CallerClass {
  if (principal.kind === 'customer') return 'customer'
  return principal.role === 'app' ? 'app' : 'staff'
}

/** How the principal is named in history entries (D-56). */
export function actorOf(principal: Principal): CallerActor {
  return principal.kind === 'customer' ? 'customer' : principal.role
}

/** A stable key per credential; idempotency keys are scoped by it (D-52). */
export function principalKey(principal: Principal): string {
  return principal.kind === 'customer' ? `customer:${principal.customerId}` : `key:${principal.keyId}`
}
