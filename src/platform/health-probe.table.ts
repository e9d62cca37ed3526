/** `health_probe`: the one row /readyz writes to learn whether the database takes writes. */
export interface HealthProbeTable {
  id: number
  /** When it was last written, ms since the epoch. */
  probed_at: number
}
