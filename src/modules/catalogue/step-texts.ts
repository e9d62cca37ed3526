import type { StatementCompiler } from '../../db/statement.js'
import type { StatsCounterRow } from './services.repository.js'
import { stepTextsQuery } from './step-texts.repository.js'

interface StepText {
  version: number
  serviceName: string
  imageTitle: string
  description: string
}

/** A step's counter row with its texts: what statistics show of it. */
export type StatsRow = StatsCounterRow & Omit<StepText, 'version'>

/**
 * The texts of every step (its service's name and image title, its description), kept in memory by
 * step id and texts version. Every change of them raises the step's version (D-47 edits, in the same
 * statement), which the counters carry, so statistics read only integers per request and take
 * texts from here. When a step id or version appears that this process has not seen (written here
 * or in another process), counters and texts are read again together, in one statement: read apart,
 * a step removed between the two reads had a counter and no text (a 500).
 */
export class StepTexts {
  private texts = new Map<number, StepText>()
  private readonly all

  constructor(database: StatementCompiler) {
    this.all = stepTextsQuery(database)
  }

  /** True when every step of these counters has its texts here (`withTexts` then reads nothing). */
  knows(counters: readonly StatsCounterRow[]): boolean {
    return counters.every((row) => this.texts.get(row.step_id)?.version === row.texts_version)
  }

  /** The statistics rows of these counters with their texts, or the rows read again with them when a text is unknown. */
  async withTexts(counters: readonly StatsCounterRow[]): Promise<StatsRow[]> {
    const texts = this.texts
    if (this.knows(counters)) {
      // Written out: V8 copies a literal with two spreads property by property in its runtime.
      return counters.map((row) => {
        const text = texts.get(row.step_id)!
        return {
          step_id: row.step_id,
          service_id: row.service_id,
          position: row.position,
          order_count: row.order_count,
          texts_version: row.texts_version,
          serviceName: text.serviceName,
          imageTitle: text.imageTitle,
          description: text.description
        }
      })
    }
    const fresh = new Map<number, StepText>()
    const rows: StatsRow[] = []
    for (const row of await this.all.rows({})) {
      const text = { serviceName: row.service_name, imageTitle: row.image_title, description: row.description }
      fresh.set(row.step_id, { version: row.texts_version, ...text })
      rows.push({
        step_id: row.step_id,
        service_id: row.service_id,
        position: row.position,
        order_count: row.order_count,
        texts_version: row.texts_version,
        ...text
      })
    }
    // Replacing the map also forgets removed steps, so it never grows past the catalogue.
    this.texts = fresh
    return rows
  }
}
