import assert from 'node:assert/strict'
import { STATUS_CODES } from 'node:http'
import type { LightMyRequestResponse } from 'fastify'
import type { ProblemCode } from '../../src/platform/problems.js'
import { PROBLEM_STATUS } from '../../src/platform/problems.js'

/** Asserts a 200 JSON answer and returns its body. */
export function ok<T = any>(response: LightMyRequestResponse): T {
  assert.equal(response.statusCode, 200, `expected 200, got ${response.statusCode}: ${response.body}`)
  assert.equal(response.headers['content-type'], 'application/json; charset=utf-8')
  return response.json() as T
}

/**
 * Asserts an RFC 9457 problem document (D-20) with this code, its status and exact shape;
 * `fields` are the JSON pointers `errors` must name, in order. Returns the document.
 */
export function problem(response: LightMyRequestResponse, code: ProblemCode, fields?: string[]): Record<string, any> {
  const status = PROBLEM_STATUS[code]
  assert.equal(response.statusCode, status, `expected ${status} ${code}, got ${response.statusCode}: ${response.body}`)
  assert.equal(response.headers['content-type'], 'application/problem+json; charset=utf-8')
  const body = response.json() as Record<string, any>
  assert.equal(body.type, `/problems/${code}`)
  assert.equal(body.title, STATUS_CODES[status])
  assert.equal(body.status, status)
  assert.equal(body.code, code)
  assert.equal(typeof body.detail, 'string')
  assert.ok(body.detail.length > 0)
  const keys = Object.keys(body).sort()
  if (fields === undefined) {
    assert.deepEqual(
      keys.filter((k) => k !== 'errors'),
      ['code', 'detail', 'status', 'title', 'type']
    )
  } else {
    assert.deepEqual(keys, ['code', 'detail', 'errors', 'status', 'title', 'type'])
    assert.deepEqual(
      body.errors.map((e: { field: string }) => e.field),
      fields
    )
    for (const error of body.errors) {
      assert.deepEqual(Object.keys(error).sort(), ['field', 'message'])
      assert.equal(typeof error.message, 'string')
    }
  }
  return body
}
