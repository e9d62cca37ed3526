// Issue 9: the staff key lives in this tab's sessionStorage only (never localStorage or a cookie);
// closing the tab or signing out forgets it.
const KEY = 'service-ordering.staff-key'

/** The staff key of this tab, if signed in. */
export function storedKey(): string | null {
  try {
    return sessionStorage.getItem(KEY)
  } catch {
    return null
  }
}

export function storeKey(key: string): void {
  sessionStorage.setItem(KEY, key)
}

/** Signing out: nothing of the key stays behind. */
export function forgetKey(): void {
  sessionStorage.removeItem(KEY)
}
