import { newPasswordPage } from '../../platform/form-page.js'

/** The D-37 page: a form that sets a new password with the token of the reset link. Self-contained. */
const RESET_PAGE = newPasswordPage({
  title: 'Choose a new password',
  formId: 'reset',
  submitLabel: 'Set password',
  endpoint: 'reset-password',
  noToken: 'This link holds no reset token. Ask for a new password reset e-mail.',
  failed: 'The password could not be changed.',
  done: 'Your password has been changed. You can sign in with it now.'
})

export const RESET_PAGE_HTML = RESET_PAGE.html
export const RESET_PAGE_HEADERS = RESET_PAGE.headers
