import type { ProblemDocument } from './api-types'

/** One field's fault in a problem document: a JSON pointer into the request body and a message (D-20). */
export interface FieldError {
  field: string
  message: string
}

/** A failed call: the problem document's code, detail and field errors, or a network failure (status 0). */
export class ApiError extends Error {
  override name = 'ApiError'
  constructor(
    readonly status: number,
    readonly code: string,
    readonly detail: string,
    readonly retryAfterSeconds?: number,
    readonly errors: readonly FieldError[] = []
  ) {
    super(detail)
  }
}

/**
 * Whether the browser sends this origin's cookies: the console's session cookie goes with its calls
 * (`same-origin`, D-16); the tracking page and anything with an Authorization header send none.
 */
export type Cookies = 'omit' | 'same-origin'

/** POSTs JSON (or nothing) to a path of this origin and answers the parsed body; ApiError otherwise. */
export async function postJson<T>(
  path: string,
  body: unknown,
  headers: Record<string, string> = {},
  cookies: Cookies = 'omit'
): Promise<T> {
  const init: RequestInit = { method: 'POST', headers: { accept: 'application/json', ...headers }, credentials: cookies, cache: 'no-store' }
  if (body !== undefined) {
    init.body = JSON.stringify(body)
    init.headers = { ...init.headers, 'content-type': 'application/json' }
  }
  return answer<T>(path, init)
}

/** GETs a JSON document of this origin (GET /console/config). */
export function getJson<T>(path: string, headers: Record<string, string> = {}): Promise<T> {
  return answer<T>(path, {
    method: 'GET',
    headers: { accept: 'application/json', ...headers },
    credentials: 'same-origin',
    cache: 'no-store'
  })
}

async function answer<T>(path: string, init: RequestInit): Promise<T> {
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
    Number.isFinite(retry) && retry > 0 ? retry : undefined,
    Array.isArray(problem.errors) ? problem.errors : []
  )
}
