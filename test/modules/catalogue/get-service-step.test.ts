import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { basic, describeEachDialect } from '../../helpers/app.js'
import { ok, problem } from '../../helpers/assertions.js'
import { createCustomer, createService } from '../../helpers/factories.js'
import { getStep, serviceIdOf } from './support.js'

describeEachDialect('get service step (spec Get service step, D-40, D-43)', (t) => {
  let washId = ''
  let customerAuth = ''

  before(async () => {
    await createService(t, 'Wash & Fold', [
      { description: 'Order received', button_title: 'Start washing', events: ['email'] },
      { description: 'Washing', button_title: 'Mark washed', events: ['text', 'trak'] },
      { description: 'Ready for delivery', button_title: 'Deliver', events: [] }
    ])
    await createService(t, 'Café Crème', [{ description: 'Only step' }])
    washId = await serviceIdOf(t, 'Wash & Fold')
    const customer = await createCustomer(t, { password: 'correct horse battery' })
    customerAuth = customer.auth!
  })

  it('should answer the whole service view of each step, percentage as a JS number (1 of 3 is 33.33333333333333)', async () => {
    const expected = [
      {
        service_id: washId,
        service_name: 'Wash & Fold',
        position: {
          position_number: '1',
          position_description: 'Order received',
          button_title: 'Start washing',
          events: [{ event: 'email' }]
        },
        progress_bar: { total_steps: 3, percentage: 33.33333333333333 }
      },
      {
        service_id: washId,
        service_name: 'Wash & Fold',
        position: {
          position_number: '2',
          position_description: 'Washing',
          button_title: 'Mark washed',
          events: [{ event: 'text' }, { event: 'trak' }]
        },
        progress_bar: { total_steps: 3, percentage: 66.66666666666666 }
      },
      {
        service_id: washId,
        service_name: 'Wash & Fold',
        position: { position_number: '3', position_description: 'Ready for delivery', button_title: 'Deliver', events: [] },
        progress_bar: { total_steps: 3, percentage: 100 }
      }
    ]
    for (const [index, view] of expected.entries()) {
      const response = await t.post(`/v1/service/Wash%20%26%20Fold/${index + 1}`)
      assert.deepEqual(ok(response), view)
      // The wire text itself: key order as the spec lists it, and the number as JavaScript writes it.
      assert.equal(response.body, JSON.stringify(view))
    }
    assert.match((await t.post('/v1/service/Wash%20%26%20Fold/1')).body, /"percentage":33\.33333333333333\}/)
  })

  it('should match the name ignoring case, URL-decoded', async () => {
    for (const path of ['Wash%20%26%20Fold', 'wash%20%26%20fold', 'WASH%20%26%20FOLD', 'wAsH%20%26%20fOlD']) {
      const view = ok(await t.post(`/v1/service/${path}/2`))
      assert.equal(view.service_name, 'Wash & Fold')
      assert.equal(view.position.position_number, '2')
    }
    for (const path of ['Caf%C3%A9%20Cr%C3%A8me', 'CAF%C3%89%20CR%C3%88ME', encodeURIComponent('café crème')]) {
      assert.equal(ok(await t.post(`/v1/service/${path}/1`)).service_name, 'Café Crème')
    }
  })

  it('should answer 404 step_not_found for position 0, steps+1, and anything that is not a whole number', async () => {
    for (const position of ['0', '4', '00', '-1', 'x', '1.5', '1e0', '%201', '99999999999', '1%20']) {
      const body = problem(await t.post(`/v1/service/Wash%20%26%20Fold/${position}`), 'step_not_found')
      assert.equal(body.detail, 'This service has no such step; its steps are numbered 1 to 3.')
    }
  })

  it('should answer 404 service_not_found for an unknown service, whatever the position', async () => {
    for (const position of ['1', '0', 'x']) {
      const body = problem(await t.post(`/v1/service/Wash%20Fold/${position}`), 'service_not_found')
      assert.equal(body.detail, 'No service with this name exists.')
    }
    problem(await t.post('/v1/service/Wash%20%26%20Fold%2Fx/1'), 'service_not_found')
  })

  it('should be readable by every caller class: app key, customer credential, staff and admin keys', async () => {
    for (const auth of [t.auth.app, customerAuth, t.auth.staff, t.auth.admin]) {
      assert.equal(ok(await getStep(t, 'Wash & Fold', 1, auth)).service_id, washId)
    }
  })

  it('should answer 401 without credentials or with wrong ones', async () => {
    const response = await getStep(t, 'Wash & Fold', 1, null)
    problem(response, 'unauthenticated')
    assert.equal(response.headers['www-authenticate'], 'Basic realm="service-ordering", charset="UTF-8"')
    problem(await getStep(t, 'Wash & Fold', 1, basic('key_nosuchkey', 'x'.repeat(43))), 'unauthenticated')
  })

  it('should ignore any body and content type it is sent (D-23)', async () => {
    const json = await t.post('/v1/service/Wash%20%26%20Fold/1', { anything: true })
    assert.equal(ok(json).service_id, washId)
    const text = await t.post('/v1/service/Wash%20%26%20Fold/1', undefined, { raw: 'not json', contentType: 'text/plain' })
    assert.equal(ok(text).service_id, washId)
  })
})
