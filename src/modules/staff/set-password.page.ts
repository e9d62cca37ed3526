import { newPasswordPage } from '../../platform/form-page.js'

/** The D-15 page of an invitation link: sets the staff user's password, then links to the console (`./` is /console/). */
export const SET_PASSWORD_PAGE = newPasswordPage({
  title: 'Set your password',
  formId: 'set-password',
  submitLabel: 'Set password',
  endpoint: 'set-password',
  noToken: 'This link holds no token. Ask an admin to invite you again.',
  failed: 'The password could not be set.',
  done: 'Your password is set. ',
  doneLink: { href: './', text: 'Sign in to the console' }
})
