import path from 'node:path'
import nodemailer, { type SendMailOptions, type Transporter } from 'nodemailer'
import { decrypt } from '../../../common/crypto.js'
import { fullName, type NotificationsRepository } from '../notifications.repository.js'
import type { OutboxClaims } from '../outbox-claims.repository.js'
import { type Channel, type DeliveryResult, failed, type OnRecorded, type OutboxDelivery, unsupported } from './channel.js'
import { type EmailContent, passwordResetEmail, staffInvitationEmail, stepEmail } from './email.templates.js'
import { describeError, isPermanentSmtpRefusal } from './errors.js'
import { writeMessageFile } from './outbox-files.js'
import { passwordResetPayload, staffInvitationPayload, stepPayload } from './payloads.js'

/** Where e-mails go (D-02): SMTP_URL, else `.eml` files under `<dataDir>/mail/`; MAIL_FROM sends them. */
export interface EmailSettings {
  readonly smtpUrl: string | null
  readonly mailFrom: string
  readonly dataDir: string
}

/** What the e-mail channel is built from. */
export interface EmailChannelDeps {
  settings: EmailSettings
  repository: NotificationsRepository
  claims: OutboxClaims
  /** The 32-byte data key reset links are sealed with (payments/card-key.ts). */
  dataKey: Buffer
  /** Connection, greeting and socket time-outs of SMTP; below the dispatcher's lease. */
  timeoutMs: number
  /** SMTP connections open at once at most: the dispatcher's e-mails in flight. */
  maxConnections: number
}

// An e-mail ready to go, and what to do in the transaction that records it as delivered.
type Letter = { to: { name: string; address: string }; content: EmailContent; onDelivered?: OnRecorded }

/** The `email` channel (D-60, D-36): nodemailer over SMTP, or one `.eml` file per message. */
export function emailChannel(deps: EmailChannelDeps): Channel {
  const { settings } = deps
  // A pool of as many SMTP connections as e-mails in flight (D-61), so an e-mail the server never
  // answers holds no other; a server that allows fewer takes `?maxConnections=N` in SMTP_URL.
  const smtp: Transporter | null =
    settings.smtpUrl === null
      ? null
      : nodemailer.createTransport({
          url: settings.smtpUrl,
          pool: true,
          maxConnections: deps.maxConnections,
          connectionTimeout: deps.timeoutMs,
          greetingTimeout: deps.timeoutMs,
          socketTimeout: deps.timeoutMs
        })
  // RFC 822 text in memory, written to a file by us (atomically, named by event id).
  const files = nodemailer.createTransport({ streamTransport: true, buffer: true })
  const mailDir = path.join(settings.dataDir, 'mail')

  async function stepLetter(message: OutboxDelivery): Promise<Letter | DeliveryResult> {
    const payload = stepPayload(message)
    if (payload === undefined || message.customerId === null) return failed('the message payload is unreadable', true)
    const contact = await deps.repository.contact(message.customerId)
    if (contact === undefined) return { kind: 'skipped', reason: 'the customer no longer exists' }
    if (contact.email === '') return { kind: 'skipped', reason: 'the customer has no e-mail address' }
    const name = fullName(contact)
    return { to: { name, address: contact.email }, content: stepEmail(name, payload) }
  }

  /** The link of a sealed payload, or a permanent failure when this data key cannot open it. */
  function unsealed(sealedLink: string, what: string): string | DeliveryResult {
    try {
      return decrypt(deps.dataKey, sealedLink)
    } catch {
      return failed(`the ${what} link cannot be unsealed with this data key`, true)
    }
  }

  async function resetLetter(message: OutboxDelivery): Promise<Letter | DeliveryResult> {
    const payload = passwordResetPayload(message)
    if (payload === undefined) return failed('the message payload is unreadable or its link was scrubbed', true)
    const link = unsealed(payload.sealed_link, 'reset')
    if (typeof link !== 'string') return link
    const contact = message.customerId === null ? undefined : await deps.repository.contact(message.customerId)
    const name = contact === undefined ? '' : fullName(contact)
    return {
      to: { name, address: payload.email },
      content: passwordResetEmail(name, link),
      // D-73: once sent, the link (a live token) no longer needs to sit in the database.
      onDelivered: (tx) => deps.claims.scrubPayload(tx, message.id, JSON.stringify({ email: payload.email, link_scrubbed: true }))
    }
  }

  async function invitationLetter(message: OutboxDelivery): Promise<Letter | DeliveryResult> {
    const payload = staffInvitationPayload(message)
    if (payload === undefined) return failed('the message payload is unreadable or its link was scrubbed', true)
    const link = unsealed(payload.sealed_link, 'set-password')
    if (typeof link !== 'string') return link
    return {
      to: { name: payload.name, address: payload.email },
      content: staffInvitationEmail(payload.name, link),
      // D-73: once sent, the link (a live token) no longer needs to sit in the database.
      onDelivered: (tx) => deps.claims.scrubPayload(tx, message.id, JSON.stringify({ email: payload.email, link_scrubbed: true }))
    }
  }

  return {
    async deliver(message, signal) {
      const letter =
        message.template === 'step'
          ? await stepLetter(message)
          : message.template === 'password_reset'
            ? await resetLetter(message)
            : message.template === 'staff_invitation'
              ? await invitationLetter(message)
              : unsupported(message)
      if ('kind' in letter) return letter
      const mail: SendMailOptions = {
        from: settings.mailFrom,
        to: letter.to,
        subject: letter.content.subject,
        text: letter.content.text,
        html: letter.content.html,
        // The event id as Message-ID: the same e-mail sent twice is recognisably one message.
        messageId: `<${message.eventId}@service-ordering>`
      }
      if (smtp !== null) {
        try {
          await smtp.sendMail({ ...mail, signal })
        } catch (error) {
          // A refused recipient is dead at once; anything else is retried (the dispatcher records it).
          if (isPermanentSmtpRefusal(error)) return failed(describeError(error), true)
          throw error
        }
      } else {
        const info = (await files.sendMail(mail)) as { message: Buffer }
        await writeMessageFile(mailDir, message.eventId, 'eml', info.message)
      }
      return letter.onDelivered === undefined ? { kind: 'delivered' } : { kind: 'delivered', onDelivered: letter.onDelivered }
    },
    async close() {
      smtp?.close()
      files.close()
    }
  }
}
