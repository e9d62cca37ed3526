import type { Static } from 'typebox'
import type { TrackingHistoryRow, TrackingStatusRow } from './tracking.repository.js'
import type { TrackingStatusResponse } from './tracking.schemas.js'

/** The public status of a tracked order: where it is and its timeline, nothing else. */
export function toTrackingStatusView(
  order: TrackingStatusRow,
  history: readonly TrackingHistoryRow[]
): Static<typeof TrackingStatusResponse> {
  return {
    service_name: order.service_name,
    position: { position_number: String(order.position), position_description: order.description },
    progress_bar: {
      total_steps: order.step_count,
      // D-43: the same expression as every service view.
      percentage: (order.position / order.step_count) * 100
    },
    history: history.map((entry) => ({
      at: new Date(entry.at).toISOString(),
      type: entry.type,
      position_number: String(entry.position),
      description: entry.description
    }))
  }
}
