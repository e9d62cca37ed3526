/**
 * `tracking_tokens`: the live tracking link of an order. The token itself is never
 * stored in the clear: `token_hash` (SHA-256, hex) finds it, `sealed_token` (AES-256-GCM under the
 * data key) lets the same link be answered again.
 */
export interface TrackingTokensTable {
  order_id: number
  token_hash: string
  sealed_token: string
  created_at: number
}
