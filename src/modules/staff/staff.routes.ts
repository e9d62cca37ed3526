import type { FastifyRequest } from 'fastify'
import type { App } from '../../platform/app-types.js'
import { Ref } from '../../platform/components.js'
import { passwordInNfkc } from '../../platform/credential-fields.js'
import { callerOf, type UseCaseRunner } from '../../platform/idempotency.js'
import { operation } from '../../platform/schemas.js'
import { CreateStaffBody, StaffList, StaffView, UpdateStaffBody } from './staff.schemas.js'
import type { RunUseCase, StaffService } from './staff.service.js'

const tags = ['staff']

/** Managing staff users (D-15): admins only, as admin API keys or admin staff users (D-18). */
export function staffRoutes(app: App, staff: StaffService, useCases: UseCaseRunner): void {
  // The request's use case, with its Idempotency-Key (D-52).
  const runFor =
    (request: FastifyRequest): RunUseCase =>
    (work) =>
      useCases.run(callerOf(request), work)

  app.post(
    '/v1/staff/create',
    {
      preValidation: passwordInNfkc,
      schema: operation({
        id: 'createStaffUser',
        summary: 'Create staff user',
        description:
          'Makes an active staff user (D-15). `email` trimmed, lower-cased and unused by any other staff user (409 `email_taken`; customers do not count); `name` 1 to 100 characters after trimming; `role` `admin` or `staff`; optional `password` of 8 to 128 characters counted in Unicode NFKC. Without a password an invitation e-mail is sent through the outbox with the link `PUBLIC_URL/console/set-password?token=…` (single use, valid 72 hours). Answers the staff view.',
        tags,
        body: CreateStaffBody,
        response: Ref(StaffView),
        problems: ['email_taken'],
        idempotent: true
      })
    },
    (request) => staff.create(request.body, runFor(request))
  )

  app.post(
    '/v1/staff/list',
    {
      schema: operation({
        id: 'listStaffUsers',
        summary: 'List staff users',
        description: 'Every staff user, active and disabled, ordered by name (D-15). Takes no body.',
        tags,
        response: Ref(StaffList),
        problems: []
      })
    },
    () => staff.list()
  )

  app.post(
    '/v1/staff/update',
    {
      preValidation: passwordInNfkc,
      schema: operation({
        id: 'updateStaffUser',
        summary: 'Update staff user',
        description:
          'Changes `name`, `role`, `status` and `password` of a staff user; fields left out are unchanged (D-15). Disabling a user or setting their password ends all their console sessions at once (their very next request is 401) and spends their open set-password links. The last active admin staff user cannot be disabled or made `staff` (409 `last_admin`; API keys do not count). An unknown `staff_id` is 404 `staff_not_found`. A rejected update changes nothing. Answers the staff view.',
        tags,
        body: UpdateStaffBody,
        response: Ref(StaffView),
        problems: ['staff_not_found', 'last_admin'],
        idempotent: true
      })
    },
    (request) => staff.update(request.body, runFor(request))
  )
}
