/** The fields an `updated` history entry for a change of times or note names, in the order orders.service.ts writes them. */
const CHANGED_FIELDS = ['pickup_timestamp', 'delivery_timestamp', 'note'] as const
export type ChangedField = (typeof CHANGED_FIELDS)[number]

/** The description of an `updated` entry naming the fields changed, in CHANGED_FIELDS order (D-56). */
export function fieldChangeDescription(changed: readonly ChangedField[]): string {
  return `Changed ${CHANGED_FIELDS.filter((field) => changed.includes(field)).join(', ')}`
}

/**
 * Every description an `updated` history entry for a change of times or note can have (D-56):
 * `Changed ` and the fields changed, in their order, joined by ", ". Such an entry leaves the order
 * where it was; an `updated` entry with any other description is a change of service, which put the
 * order at step 1 of the new service and names that step (D-53).
 */
export const FIELD_CHANGE_DESCRIPTIONS: readonly string[] = Array.from({ length: (1 << CHANGED_FIELDS.length) - 1 }, (_, i) => i + 1).map(
  (set) => fieldChangeDescription(CHANGED_FIELDS.filter((_, bit) => (set & (1 << bit)) !== 0))
)
