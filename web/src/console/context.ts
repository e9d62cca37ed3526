import type { Api } from './api'
import type { SignedIn } from './session'

/** What every view of the console gets from the shell. */
export interface Console {
  readonly api: Api
  readonly names: CustomerNames
  /** Who is signed in (D-16): their id, name and role; the Staff page is for admins. */
  readonly me: Readonly<Pick<SignedIn, 'staff_id' | 'name' | 'role'>>
  /** Says something in the status line (a polite live region). */
  notify(message: string): void
  /** Shows why something failed, in `where` (an alert region) or the status line; a lost session signs out. */
  fail(error: unknown, where?: HTMLElement): void
  /** Goes to another page of the console (`#/board/…`), with a message for its status line. */
  go(hash: string, message?: string): void
  /** False once the user has gone to another page; a slow view stops drawing then. */
  current(): boolean
}

/** Customer names for the board and panels: fetched once per page load (issue 9). */
export class CustomerNames {
  private readonly names = new Map<string, Promise<string>>()

  constructor(private readonly api: Api) {}

  name(customerId: string): Promise<string> {
    let name = this.names.get(customerId)
    if (name === undefined) {
      name = this.api.customer(customerId).then(
        (record) => `${record.first_name} ${record.last_name}`.trim() || record.email,
        () => {
          this.names.delete(customerId)
          return 'Unknown customer'
        }
      )
      this.names.set(customerId, name)
    }
    return name
  }

  /** Names of many customers at once, by id. */
  async all(customerIds: readonly string[]): Promise<Map<string, string>> {
    const unique = [...new Set(customerIds)]
    const names = await Promise.all(unique.map((id) => this.name(id)))
    return new Map(unique.map((id, index) => [id, names[index]!]))
  }

  /** Forgets a name that just changed. */
  forget(customerId: string): void {
    this.names.delete(customerId)
  }
}
