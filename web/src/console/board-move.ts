import { ApiError } from '../shared/http'
import type { Console } from './context'

/** What a move needs: the order, its owner, and the step the page showed it at (D-55). */
interface MoveTarget {
  transaction_id: string
  transaction_code: string
  customer_id: string
  position_number: number
}

/** The label of the button that moves an order on from a step: its button title, else a plain verb. */
export function moveLabel(buttonTitle: string, position: number, totalSteps: number): string {
  if (buttonTitle.trim() !== '') return buttonTitle
  return position >= totalSteps ? 'Complete' : 'Move on'
}

/**
 * D-55 from the console: moves the order on from the step the user saw. A second tap, or a
 * colleague who moved it first, gets 409 `position_changed` and nothing moves. Answers what to
 * tell the user once the page shows the new state, or null when the failure was shown already.
 */
export async function moveOrder(c: Console, target: MoveTarget): Promise<string | null> {
  const code = target.transaction_code
  try {
    const moved = await c.api.move({
      customer_id: target.customer_id,
      transaction_id: target.transaction_id,
      position_number: target.position_number
    })
    const step = moved.service.position
    return moved.status === 'closed'
      ? `Order #${code} is complete and closed.`
      : `Order #${code} moved to step ${step.position_number}: ${step.position_description}.`
  } catch (error) {
    if (error instanceof ApiError && (error.code === 'position_changed' || error.code === 'transaction_closed')) {
      return `Order #${code} had already been moved on by someone else; nothing moved, and the page now shows where it is.`
    }
    c.fail(error)
    return null
  }
}
