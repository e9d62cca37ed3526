/** Roles an API key may hold (D-10); the api-keys module stores them. */
export type ApiKeyRole = 'admin' | 'staff' | 'app'

/** Roles a staff user may hold (D-15); the staff module stores them. */
export type StaffRole = 'admin' | 'staff'

/** How a caller is named in history entries (D-56); orders' `Actor` adds the system. */
export type CallerActor = 'customer' | ApiKeyRole

/** Who is calling: Basic credentials (D-10) or a console session with its CSRF token (D-16). */
export type Principal =
  | { readonly kind: 'key'; readonly role: ApiKeyRole; readonly keyId: string; readonly name: string }
  | { readonly kind: 'customer'; readonly customerId: string }
  | { readonly kind: 'staff'; readonly role: StaffRole; readonly staffId: string; readonly name: string }

/** The caller classes of D-12's table; admin may call everything staff may. */
export type CallerClass = 'app' | 'customer' | 'staff'

/** The caller class a principal belongs to in D-12. */
function callerClass(principal: Principal): CallerClass {
  if (principal.kind === 'customer') return 'customer'
  return principal.role === 'app' ? 'app' : 'staff'
}

/** Whether the principal holds the admin role, as an API key or a staff user (D-18). */
function isAdmin(principal: Principal): boolean {
  return principal.kind !== 'customer' && principal.role === 'admin'
}

/**
 * Who a scope of routes admits (platform/callers-scope.ts `callersScope`): the caller classes of D-12, or
 * `admin`, the admin role only (D-18), as an admin API key or an admin staff user.
 */
export type ScopeCaller = CallerClass | 'admin'

/** Whether a scope open to `callers` admits the principal; a scope open to staff admits admins too (D-12). */
export function admits(callers: readonly ScopeCaller[], principal: Principal): boolean {
  return callers.includes(callerClass(principal)) || (callers.includes('admin') && isAdmin(principal))
}

/** How the principal is named in history entries (D-56). */
export function actorOf(principal: Principal): CallerActor {
  return principal.kind === 'customer' ? 'customer' : principal.role
}

/** Who did it, by name, in history entries (D-17, D-56): "" for customers. */
export function byOf(principal: Principal): string {
  return principal.kind === 'customer' ? '' : principal.name
}

/** A stable key per credential; idempotency keys are scoped by it (D-52). */
export function principalKey(principal: Principal): string {
  if (principal.kind === 'customer') return `customer:${principal.customerId}`
  return principal.kind === 'key' ? `key:${principal.keyId}` : `staff:${principal.staffId}`
}
