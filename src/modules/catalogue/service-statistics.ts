import type { Static } from 'typebox'
import type { StatementCompiler } from '../../db/statement.js'
import type { ServicesRepository } from './services.repository.js'
import type { StatsResponse } from './services.schemas.js'
import { toStatsView } from './services.views.js'
import { StepTexts } from './step-texts.js'

type Statistics = Static<typeof StatsResponse>

/**
 * The statistics answer (D-44): the step counters, read on every call, with the step texts kept in
 * memory. Counters read as the same text as last time give the same answer object, so a poll between
 * two order changes is neither built nor serialised again, even where no memo keeps answers
 * (PostgreSQL; platform/shared-answers.ts keeps its body).
 */
export class ServiceStatistics {
  private readonly texts: StepTexts
  private last: { text: string; answer: Statistics } | undefined

  constructor(
    private readonly repo: Pick<ServicesRepository, 'counters'>,
    database: StatementCompiler
  ) {
    this.texts = new StepTexts(database)
  }

  async read(): Promise<Statistics> {
    const counters = await this.repo.counters()
    const last = this.last
    if (last !== undefined && last.text === counters.text) return last.answer
    // Only an answer built from these very counters is kept: with a step unknown here, withTexts
    // reads counters again with the texts, and those may be newer than `counters.text`.
    const fromTheseCounters = this.texts.knows(counters.rows)
    const rows = await this.texts.withTexts(counters.rows)
    const answer = toStatsView(
      rows.map((row) => ({
        service_id: row.service_id,
        service_name: row.serviceName,
        image_title: row.imageTitle,
        position: row.position,
        description: row.description,
        order_count: row.order_count
      }))
    )
    if (fromTheseCounters) this.last = { text: counters.text, answer }
    return answer
  }
}
