import assert from 'node:assert/strict'
import { before, it } from 'node:test'
import { describeEachDialect } from '../helpers/app.js'
import { ok, problem } from '../helpers/assertions.js'
import { CLI, run } from '../helpers/processes.js'
import { createStaff, postSignIn, signIn, withSession } from '../modules/staff/support.js'

const LINK =
  /^created (admin|staff) (\S+) \((stf_[0-9a-z]{24})\); set the password within 72 hours at:\nhttps:\/\/shop\.example\.com\/console\/set-password\?token=([A-Za-z0-9_-]{43})\n$/

describeEachDialect('service-ordering staff (D-15, D-90)', (t) => {
  let env: Record<string, string>
  let sequence = 0
  const email = () => `cli${++sequence}.${Date.now()}@example.com`

  before(() => {
    const database = t.config.database
    env = {
      DATABASE_URL: database.kind === 'sqlite' ? `sqlite:${database.file}` : database.url,
      DATA_DIR: t.config.dataDir,
      PUBLIC_URL: 'https://shop.example.com'
    }
  })

  it('should make a user and print the set-password link once; the link sets the password, then they sign in', async () => {
    const address = email()
    const result = await run(CLI, ['staff', 'create', '--email', address.toUpperCase(), '--name', 'First Admin', '--role', 'admin'], env)
    assert.equal(result.code, 0, result.stderr)
    assert.equal(result.stderr, '')
    const match = LINK.exec(result.stdout)
    assert.ok(match, result.stdout)
    assert.equal(match[1], 'admin')
    assert.equal(match[2], address)
    // No e-mail is queued: the link printed is the only one.
    assert.equal((await t.database.db.selectFrom('outbox').select('id').where('template', '=', 'staff_invitation').execute()).length, 0)
    assert.deepEqual(ok(await t.post('/console/set-password', { token: match[4], password: 'first-admin-pass' }, { auth: null })), {
      status: 'success'
    })
    const session = await signIn(t, address, 'first-admin-pass')
    ok(await withSession(t, session, '/v1/staff/list'))
  })

  it('should refuse an e-mail another staff user has with one line and status 1, and usage mistakes with status 2', async () => {
    const taken = await createStaff(t)
    const duplicate = await run(CLI, ['staff', 'create', '--email', taken.email, '--name', 'Copy', '--role', 'staff'], env)
    assert.equal(duplicate.code, 1)
    assert.equal(duplicate.stdout, '')
    assert.equal(duplicate.stderr, 'service-ordering: Another staff user already uses this e-mail address.\n')
    for (const args of [
      ['staff', 'create', '--email', email(), '--name', 'No Role'],
      ['staff', 'create', '--email', email(), '--name', 'Bad Role', '--role', 'app'],
      ['staff', 'create', '--name', 'No Email', '--role', 'staff'],
      ['staff', 'create', '--email', email(), '--role', 'staff'],
      ['staff', 'create', '--email', email(), '--name', 'Extra', '--role', 'staff', 'word'],
      ['staff', 'disable'],
      ['staff', 'list', '--role', 'admin'],
      ['staff', 'fire', 'someone@example.com'],
      ['staff']
    ]) {
      const result = await run(CLI, args, env)
      assert.equal(result.code, 2, `${args.join(' ')}: ${result.stderr}`)
      assert.match(result.stderr, /^service-ordering: .+\n\nusage: service-ordering <command>/)
    }
    const invalid = await run(CLI, ['staff', 'create', '--email', 'not-an-address', '--name', 'X', '--role', 'staff'], env)
    assert.equal(invalid.code, 1)
    assert.match(invalid.stderr, /^service-ordering: The request is invalid: email must be an e-mail address like name@example\.com.*\n$/)
  })

  it('should list staff users with id, role, status, creation time, e-mail and name, never a password or hash', async () => {
    const user = await createStaff(t, 'staff', 'Listed Person')
    const listed = await run(CLI, ['staff', 'list'], env)
    assert.equal(listed.code, 0, listed.stderr)
    const lines = listed.stdout.trimEnd().split('\n')
    assert.equal(lines[0], 'STAFF_ID                  ROLE   STATUS    CREATED                   EMAIL  NAME')
    const row = lines.find((line) => line.startsWith(`${user.staff_id} `))
    assert.ok(row, listed.stdout)
    assert.match(
      row,
      new RegExp(`^${user.staff_id} +staff +active +\\d{4}-\\d\\d-\\d\\dT[\\d:.]+Z +${user.email.replace(/\./g, '\\.')}  Listed Person$`)
    )
    assert.doesNotMatch(listed.stdout, /scrypt|\$/)
    assert.ok(!listed.stdout.includes(user.password))
  })

  it('should disable a user by e-mail, ending their sessions at once; refuse the last active admin and unknown e-mails', async () => {
    const user = await createStaff(t)
    const session = await signIn(t, user.email, user.password)
    const disabled = await run(CLI, ['staff', 'disable', ` ${user.email.toUpperCase()}`], env)
    assert.equal(disabled.code, 0, disabled.stderr)
    assert.equal(disabled.stdout, `disabled ${user.email}\n`)
    problem(await withSession(t, session, '/v1/service/stats'), 'unauthenticated')
    problem(await postSignIn(t, { email: user.email, password: user.password }), 'invalid_login')

    const unknown = await run(CLI, ['staff', 'disable', 'nobody@example.com'], env)
    assert.equal(unknown.code, 1)
    assert.equal(unknown.stderr, 'service-ordering: no staff user nobody@example.com\n')

    // Leave one active admin, then try to disable them.
    const admins = ok(await t.post('/v1/staff/list', undefined, { auth: t.auth.admin })).staff.filter(
      (u: { role: string; status: string }) => u.role === 'admin' && u.status === 'active'
    )
    for (const admin of admins.slice(1))
      ok(await t.post('/v1/staff/update', { staff_id: admin.staff_id, status: 'disabled' }, { auth: t.auth.admin }))
    const last = admins[0]
    const refused = await run(CLI, ['staff', 'disable', last.email], env)
    assert.equal(refused.code, 1)
    assert.equal(refused.stdout, '')
    assert.equal(
      refused.stderr,
      'service-ordering: This is the last active admin staff user: make another one admin before disabling them or making them staff.\n'
    )
    assert.equal(
      ok(await t.post('/v1/staff/list', undefined, { auth: t.auth.admin })).staff.find(
        (u: { staff_id: string }) => u.staff_id === last.staff_id
      ).status,
      'active'
    )
  })
})
