// Sign-in and sign-up forms. Errors are shown above the form and announced (role=alert);
// fields keep what was typed except the password.
import { html, type SafeHtml } from '../html.js';
import type { SignupMode } from '../../../../../shared/src/infra/console-config.js';

export function signInForm(opts: { csrf: string; email?: string; error?: string; next?: string; signup: SignupMode; signedOut?: boolean }): SafeHtml {
  return html`<div class="auth"><h1>Sign in to Trawl</h1>
${opts.signedOut ? html`<div class="panel notice good" role="status"><p>You are signed out.</p></div>` : ''}
${opts.error ? html`<div class="panel notice bad" role="alert"><p class="err">${opts.error}</p></div>` : ''}
<form class="stack" method="post" action="/console/signin">
<input type="hidden" name="_csrf" value="${opts.csrf}">
${opts.next ? html`<input type="hidden" name="next" value="${opts.next}">` : ''}
<div><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required value="${opts.email ?? ''}"></div>
<div><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="current-password" required></div>
<div><button type="submit">Sign in</button></div></form>
<p class="muted small">${opts.signup === 'open' ? html`No account yet? <a href="/console/signup">Sign up</a>.` : 'New here? Accounts are made from an invite link: ask an admin of this server.'}</p></div>`;
}

export function signUpForm(opts: { csrf: string; email?: string; error?: string; invite?: string; role?: string; blocked?: string }): SafeHtml {
  if (opts.blocked) {
    return html`<div class="auth"><h1>Create your account</h1><div class="panel notice bad" role="alert"><p class="err">${opts.blocked}</p></div>
<p><a href="/console/signin">Sign in</a> if you have an account.</p></div>`;
  }
  return html`<div class="auth"><h1>Create your account</h1>
${opts.role === 'admin' ? html`<p class="panel notice">This invite makes an <strong>admin</strong> account: it can invite people, change plans and disable accounts.</p>` : ''}
${opts.error ? html`<div class="panel notice bad" role="alert"><p class="err">${opts.error}</p></div>` : ''}
<form class="stack" method="post" action="/console/signup">
<input type="hidden" name="_csrf" value="${opts.csrf}">
${opts.invite ? html`<input type="hidden" name="invite" value="${opts.invite}">` : ''}
<div><label for="email">Email</label><input id="email" name="email" type="email" autocomplete="username" required maxlength="254" value="${opts.email ?? ''}"></div>
<div><label for="password">Password</label><input id="password" name="password" type="password" autocomplete="new-password" required minlength="10" maxlength="200" aria-describedby="pw-help">
<p id="pw-help" class="muted small">At least 10 characters.</p></div>
<div><button type="submit">Create account</button></div></form>
<p class="muted small">Have an account? <a href="/console/signin">Sign in</a>.</p></div>`;
}
