import type { Logger } from 'pino'
import { type Clock, systemClock } from '../../common/clock.js'
import type { Config } from '../../config.js'
import type { Database } from '../../db/database.js'
import type { ChannelSet } from './channels/channel.js'
import { emailChannel } from './channels/email.channel.js'
import { textChannel } from './channels/text.channel.js'
import { trakChannel } from './channels/trak.channel.js'
import { type OutboxCounters, unservedOutboxCounters } from './notifications.metrics.js'
import { notificationsRepository, type OwnerFragments } from './notifications.repository.js'
import { Dispatcher, type DispatcherOptions, dispatcherOptions } from './outbox.dispatcher.js'
import { outboxClaims } from './outbox-claims.repository.js'

/** The configuration the channels read (D-02): where e-mails, texts and webhooks go. */
export type NotificationSettings = Pick<Config, 'smtpUrl' | 'mailFrom' | 'smsWebhookUrl' | 'webhookUrl' | 'webhookSecret' | 'dataDir'>

/** What `createDispatcher` needs; all but the settings, database, fragments, data key and logger have defaults. */
export interface CreateDispatcherDeps {
  settings: NotificationSettings
  database: Database
  /** The SQL fragments customers and orders export for the tables they own (contacts, history). */
  fragments: OwnerFragments
  /** The data key reset links are sealed with (payments/card-key.ts). */
  dataKey: Buffer
  logger: Logger
  clock?: Clock
  /** Where it counts: those an app or worker serves on /metrics (registerOutboxMetrics); else unserved ones. */
  counters?: OutboxCounters
  options?: Partial<DispatcherOptions>
  /** Replaces channels, e.g. with one that never answers in a test of a killed dispatcher. */
  channels?: Partial<ChannelSet>
}

/** The three channels configured from the settings (D-60). */
function createChannels(
  deps: Pick<CreateDispatcherDeps, 'settings' | 'database' | 'fragments' | 'dataKey'> & {
    clock: Clock
    timeoutMs: number
    inFlightPerChannel: number
  }
): ChannelSet {
  const repository = notificationsRepository(deps.database, deps.fragments)
  return {
    email: emailChannel({
      settings: deps.settings,
      repository,
      claims: outboxClaims(deps.database),
      dataKey: deps.dataKey,
      timeoutMs: deps.timeoutMs,
      maxConnections: deps.inFlightPerChannel
    }),
    text: textChannel({ settings: deps.settings, repository }),
    trak: trakChannel({ settings: deps.settings, repository, clock: deps.clock })
  }
}

/** A dispatcher with the configured channels (D-60, D-61); call `start()` to run it, `stop()` to end it. */
export function createDispatcher(deps: CreateDispatcherDeps): Dispatcher {
  const clock = deps.clock ?? systemClock
  const options = dispatcherOptions(deps.options)
  const channels = {
    ...createChannels({ ...deps, clock, timeoutMs: options.deliveryTimeoutMs, inFlightPerChannel: options.batchSize }),
    ...deps.channels
  }
  return new Dispatcher({
    database: deps.database,
    channels,
    clock,
    logger: deps.logger,
    counters: deps.counters ?? unservedOutboxCounters(),
    options
  })
}
