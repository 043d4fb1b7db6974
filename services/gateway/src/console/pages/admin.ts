// The admin page (admins only): accounts with their role, plan, status and usage; invite
// someone (and revoke an open invite); change an account's plan; disable or enable an
// account; move the keys npm start made (owned by no account) into one's own account.
import type { KeySummary } from '../../../../../shared/src/domain/api-keys/admin.js';
import { PLANS } from '../../../../../shared/src/domain/plans.js';
import type { AccountDoc, InviteDoc } from '../../../../../shared/src/infra/store/index.js';
import { html, statusBadge, when, type SafeHtml } from '../html.js';

export interface AccountRow {
  account: AccountDoc;
  activeKeys: number;
  monthPages: number;
}

export function adminPage(opts: { csrf: string; viewerId: string; rows: AccountRow[]; invites: InviteDoc[]; operatorKeys: KeySummary[]; now: Date; invited?: { link: string; expiresAt: string; role: string } | undefined; notice?: string | undefined }): SafeHtml {
  return html`<h1>Admin</h1>
${opts.notice ? html`<div class="panel notice good" role="status"><p>${opts.notice}</p></div>` : ''}
<section class="panel" aria-labelledby="invite"><h2 id="invite">Invite someone</h2>
${opts.invited ? html`<div class="notice good"><p>Send this link to the person you invite (a ${opts.invited.role} account). It works once, until ${when(opts.invited.expiresAt)}, and is shown only now.</p>
<div class="secret"><code id="invite-link">${opts.invited.link}</code><button type="button" class="secondary" data-copy="invite-link" hidden>Copy</button></div></div>` : ''}
<form method="post" action="/console/admin/invites" class="row"><input type="hidden" name="_csrf" value="${opts.csrf}">
<div><label for="role">Role</label><select id="role" name="role"><option value="member">member</option><option value="admin">admin</option></select></div>
<div><button type="submit">Make an invite link</button></div></form></section>
<h2>Accounts</h2>
<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Email</th><th scope="col">Role</th><th scope="col">Status</th><th scope="col">Created</th><th scope="col">Keys</th><th scope="col">Pages this month</th><th scope="col">Plan</th><th scope="col"><span class="skip">Actions</span></th></tr></thead><tbody>
${opts.rows.map(({ account: a, activeKeys, monthPages }) => html`<tr><td data-label="Email">${a.email}</td><td data-label="Role">${a.role}</td><td data-label="Status">${statusBadge(a.status)}</td><td data-label="Created">${when(a.createdAt)}</td><td data-label="Active keys">${activeKeys}</td><td data-label="Pages">${monthPages}</td>
<td data-label="Plan"><form method="post" action="/console/admin/accounts/${a.id}/plan" class="actions"><input type="hidden" name="_csrf" value="${opts.csrf}">
<label class="skip" for="plan-${a.id}">Plan of ${a.email}</label><select id="plan-${a.id}" name="plan">${PLANS.map((p) => html`<option value="${p}"${p === a.plan ? html` selected` : ''}>${p}</option>`)}</select>
<button class="secondary" type="submit">Set plan</button></form></td>
<td data-label="">${a.id === opts.viewerId ? html`<span class="muted small">you</span>` : a.status === 'ACTIVE'
    ? html`<form class="inline" method="post" action="/console/admin/accounts/${a.id}/disable" data-confirm="Disable ${a.email}? They are signed out and their API keys are revoked for good.">
<input type="hidden" name="_csrf" value="${opts.csrf}"><button class="danger" type="submit">Disable</button></form>`
    : html`<form class="inline" method="post" action="/console/admin/accounts/${a.id}/enable"><input type="hidden" name="_csrf" value="${opts.csrf}"><button class="secondary" type="submit">Enable</button></form>`}</td></tr>`)}
</tbody></table></div>
<p class="muted small">An account's keys take its plan: pick one and press Set plan (the top plan is <strong>${PLANS.at(-1)}</strong>). New accounts get <code>CONSOLE_DEFAULT_PLAN</code>. Disabling signs the account out and revokes its keys (revocation is final; after enabling, it makes new keys).</p>
${opts.operatorKeys.length ? html`<section class="panel" aria-labelledby="operator-keys"><h2 id="operator-keys">Operator keys</h2>
<p>These keys belong to no account (made by <code>npm start</code>, <code>BOOTSTRAP_API_KEYS</code> or <code>npm run keys</code>), so their jobs and usage show nowhere in the console. Move them into your account to see them; they keep working as before, on your account's plan.</p>
<ul>${opts.operatorKeys.map((k) => html`<li><span class="mono">${k.keyId}</span> “${k.label}” (${k.plan}, made ${when(k.createdAt)})
<form class="inline" method="post" action="/console/admin/operator-keys/adopt"><input type="hidden" name="_csrf" value="${opts.csrf}"><input type="hidden" name="keyId" value="${k.keyId}"><button class="secondary" type="submit" aria-label="Move key ${k.keyId} into my account">Move into my account</button></form></li>`)}</ul></section>` : ''}
<h2>Invites</h2>
${opts.invites.length === 0 ? html`<p class="muted">None yet.</p>` : html`<div class="table-wrap"><table class="small stack"><thead><tr><th scope="col">Made</th><th scope="col">By</th><th scope="col">Role</th><th scope="col">State</th><th scope="col"><span class="skip">Actions</span></th></tr></thead><tbody>
${opts.invites.map((i) => {
    const open = !i.redeemedAt && !i.revokedAt && Date.parse(i.expiresAt) > opts.now.getTime();
    return html`<tr><td data-label="Made">${when(i.createdAt)}</td><td data-label="By">${i.createdBy === 'operator' ? 'operator' : opts.rows.find((r) => r.account.id === i.createdBy)?.account.email ?? i.createdBy}</td><td data-label="Role">${i.role}</td>
<td data-label="State">${i.redeemedAt ? html`used ${when(i.redeemedAt)} by ${opts.rows.find((r) => r.account.id === i.redeemedBy)?.account.email ?? i.redeemedBy}` : i.revokedAt ? html`revoked ${when(i.revokedAt)}` : open ? html`open until ${when(i.expiresAt)}` : html`expired ${when(i.expiresAt)}`}</td>
<td data-label="">${open ? html`<form class="inline" method="post" action="/console/admin/invites/${i.id}/revoke" data-confirm="Revoke this invite? Its link stops working."><input type="hidden" name="_csrf" value="${opts.csrf}"><button class="danger" type="submit" aria-label="Revoke the ${i.role} invite made ${i.createdAt}">Revoke</button></form>` : ''}</td></tr>`;
  })}</tbody></table></div>`}`;
}
