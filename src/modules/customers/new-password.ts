import type { preValidationHookHandler } from 'fastify'

/**
 * A new password (create, D-31; reset confirm, D-37) is validated and stored in Unicode NFKC, the
 * form passwords are compared in (common/crypto.ts): its 8 to 128 characters are those of the
 * password as compared, whatever form the keyboard sent (seven "ë" sent decomposed are 14 code
 * points, but seven characters).
 */
export const passwordInNfkc: preValidationHookHandler = (request, _reply, done) => {
  const body = request.body as { password?: unknown } | null | undefined
  if (typeof body === 'object' && body !== null && typeof body.password === 'string') body.password = body.password.normalize('NFKC')
  done()
}
