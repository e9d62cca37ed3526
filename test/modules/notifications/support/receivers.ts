import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { SMTPServer } from 'smtp-server'

/** One e-mail as the SMTP server received it. */
export interface ReceivedMail {
  from: string
  to: string[]
  raw: string
}

/** An in-process SMTP server on a free port, collecting what it receives. */
export interface SmtpReceiver {
  readonly url: string
  readonly messages: ReceivedMail[]
  /**
   * The SMTP reply code refusing a recipient (RCPT TO), `hang` to never answer it (until
   * `releaseHanging`), or undefined to accept it; accepts all unless replaced.
   */
  refuseRecipient: (address: string) => number | 'hang' | undefined
  /** Recipients left hanging so far. */
  readonly hanging: string[]
  /** Answers every hanging recipient with a 451, so the connections can end. */
  releaseHanging(): void
  close(): Promise<void>
}

export async function startSmtpReceiver(): Promise<SmtpReceiver> {
  const messages: ReceivedMail[] = []
  const held: Array<() => void> = []
  let receiver: SmtpReceiver
  const server = new SMTPServer({
    // Plain SMTP on localhost: no STARTTLS (its self-signed certificate would be refused) and no AUTH.
    disabledCommands: ['STARTTLS', 'AUTH'],
    authOptional: true,
    logger: false,
    onRcptTo(address, _session, callback) {
      const code = receiver.refuseRecipient(address.address)
      if (code === undefined) return callback()
      if (code === 'hang') {
        receiver.hanging.push(address.address)
        held.push(() => callback(Object.assign(new Error('Released, try later'), { responseCode: 451 })))
        return
      }
      callback(Object.assign(new Error(code >= 500 ? 'No such mailbox here' : 'Mailbox busy, try later'), { responseCode: code }))
    },
    onData(stream, session, callback) {
      const chunks: Buffer[] = []
      stream.on('data', (chunk: Buffer) => chunks.push(chunk))
      stream.on('end', () => {
        messages.push({
          from: session.envelope.mailFrom === false ? '' : session.envelope.mailFrom.address,
          to: session.envelope.rcptTo.map((r) => r.address),
          raw: Buffer.concat(chunks).toString('utf8')
        })
        callback()
      })
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  receiver = {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    refuseRecipient: () => undefined,
    hanging: [],
    releaseHanging: () => {
      for (const answer of held.splice(0)) answer()
    },
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
  return receiver
}

/** One request as the HTTP receiver saw it. */
export interface ReceivedRequest {
  /** The request target: path and query. */
  url: string
  headers: http.IncomingHttpHeaders
  body: string
  /** Wall-clock time of arrival. */
  receivedAt: number
}

/** How the receiver answers a request: a status (with headers), or `hang` to never answer. */
export type Answer = number | { status: number; headers: Record<string, string> } | 'hang'

/** A local HTTP server on a free port standing in for an SMS gateway or a webhook receiver. */
export interface HttpReceiver {
  readonly url: string
  readonly requests: ReceivedRequest[]
  /** Decides the answer of each request; 200 unless replaced. */
  answer: (request: ReceivedRequest, index: number) => Answer | Promise<Answer>
  close(): Promise<void>
}

export async function startHttpReceiver(): Promise<HttpReceiver> {
  const hanging = new Set<http.ServerResponse>()
  const receiver: HttpReceiver = {
    url: '',
    requests: [],
    answer: () => 200,
    close: async () => {
      for (const response of hanging) response.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    }
  }
  const server = http.createServer((request, response) => {
    const chunks: Buffer[] = []
    request.on('data', (chunk: Buffer) => chunks.push(chunk))
    request.on('end', () => {
      const received: ReceivedRequest = {
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        receivedAt: Date.now()
      }
      const index = receiver.requests.push(received) - 1
      void Promise.resolve(receiver.answer(received, index)).then((answer) => {
        if (answer === 'hang') {
          hanging.add(response)
          return
        }
        const { status, headers } = typeof answer === 'number' ? { status: answer, headers: {} } : answer
        response.writeHead(status, { 'content-type': 'text/plain', ...headers }).end(status < 300 ? 'ok' : 'no')
      })
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  Object.assign(receiver, { url: `http://127.0.0.1:${port}/hook` })
  return receiver
}

/** A parsed e-mail: headers (lower-case names, decoded), and the plain-text and HTML bodies. */
export interface ParsedMail {
  headers: Record<string, string>
  text: string
  html: string
}

function decodeWords(value: string): string {
  return value.replace(/=\?utf-8\?([bq])\?([^?]*)\?=\s*/gi, (_all, encoding: string, text: string) =>
    encoding.toLowerCase() === 'b' ? Buffer.from(text, 'base64').toString('utf8') : decodeQuotedPrintable(text.replace(/_/g, ' '))
  )
}

function decodeQuotedPrintable(text: string): string {
  const bytes: number[] = []
  const soft = text.replace(/=\r?\n/g, '')
  for (let i = 0; i < soft.length; i++) {
    if (soft[i] === '=' && /^[0-9A-F]{2}$/i.test(soft.slice(i + 1, i + 3))) {
      bytes.push(parseInt(soft.slice(i + 1, i + 3), 16))
      i += 2
    } else {
      bytes.push(...Buffer.from(soft[i]!, 'utf8'))
    }
  }
  return Buffer.from(bytes).toString('utf8')
}

function splitEntity(raw: string): { headers: Record<string, string>; body: string } {
  const normalized = raw.replace(/\r\n/g, '\n')
  const end = normalized.indexOf('\n\n')
  const head = end === -1 ? normalized : normalized.slice(0, end)
  const body = end === -1 ? '' : normalized.slice(end + 2)
  const headers: Record<string, string> = {}
  for (const line of head.replace(/\n[ \t]+/g, ' ').split('\n')) {
    const colon = line.indexOf(':')
    if (colon > 0) headers[line.slice(0, colon).trim().toLowerCase()] = decodeWords(line.slice(colon + 1).trim())
  }
  return { headers, body }
}

function decodeBody(headers: Record<string, string>, body: string): string {
  const encoding = (headers['content-transfer-encoding'] ?? '7bit').toLowerCase()
  if (encoding === 'base64') return Buffer.from(body.replace(/\s+/g, ''), 'base64').toString('utf8')
  if (encoding === 'quoted-printable') return decodeQuotedPrintable(body)
  return body
}

/** Enough of MIME for these tests: one level of multipart/alternative, or a single part. */
export function parseMail(raw: string): ParsedMail {
  const { headers, body } = splitEntity(raw)
  const mail: ParsedMail = { headers, text: '', html: '' }
  const boundary = /boundary="?([^";]+)"?/i.exec(headers['content-type'] ?? '')?.[1]
  const parts =
    boundary === undefined
      ? [{ headers, body }]
      : body
          .split(`--${boundary}`)
          .slice(1, -1)
          .map((part) => splitEntity(part.replace(/^\n/, '')))
  for (const part of parts) {
    const type = (part.headers['content-type'] ?? 'text/plain').toLowerCase()
    const decoded = decodeBody(part.headers, part.body).replace(/\n$/, '')
    if (type.startsWith('text/plain')) mail.text = decoded
    if (type.startsWith('text/html')) mail.html = decoded
  }
  return mail
}
