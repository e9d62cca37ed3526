import type { ProblemDocument } from './api-types'

/** A failed call: the problem document's code and detail, or a network failure (status 0). */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly retryAfterSeconds?: number
  ) {
    super(detail)
  }
}

/** POSTs JSON (or nothing) to a path of this origin and answers the parsed body; ApiError otherwise. */
export async function postJson<T>(path: string, body: unknown, headers: Record<string, string> = {}): Promise<T> {
  const init: RequestInit = { method: 'POST', headers: { accept: 'application/json', ...headers }, credentials: 'omit', cache: 'no-store' }
  if (body !== undefined) {
    init.body = JSON.stringify(body)
    init.headers = { ...init.headers, 'content-type': 'application/json' }
  }
  let response: Response
  try {
    response = await fetch(path, init)
  } catch {
    throw new ApiError(0, 'network', 'The server could not be reached; check the connection and try again.')
  }
  const text = await response.text()
  if (response.ok) return JSON.parse(text) as T
  let problem: Partial<ProblemDocument> = {}
  try {
    problem = JSON.parse(text) as ProblemDocument
  } catch {
    // Not a problem document (a proxy's error page): the status says enough.
  }
  const retry = Number(response.headers.get('retry-after'))
  throw new ApiError(
    response.status,
    problem.code ?? 'http_error',
    problem.detail ?? `The server answered ${response.status}.`,
    Number.isFinite(retry) && retry > 0 ? retry : undefined
  )
}
