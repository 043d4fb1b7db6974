// The admin page (admins only): accounts with their role, plan, status and usage; invite
// someone; change an account's plan; disable or enable an account.
import { PLANS } from '../../../../../shared/src/plans.js';
import type { AccountDoc, InviteDoc } from '../../../../../shared/src/store/index.js';
import { html, statusBadge, when, type SafeHtml } from '../html.js';

export interface AccountRow {
  account: AccountDoc;
  activeKeys: number;
  monthPages: number;
}

export function adminPage(opts: { csrf: string; viewerId: string; rows: AccountRow[]; invites: InviteDoc[]; now: Date; invited?: { link: string; expiresAt: string; role: string } | undefined; notice?: string | undefined }): SafeHtml {
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
<p class="muted small">An account's keys take its plan. Disabling signs the account out and revokes its keys (revocation is final; after enabling, it makes new keys).</p>
<h2>Invites</h2>
${opts.invites.length === 0 ? html`<p class="muted">None yet.</p>` : html`<div class="table-wrap"><table class="small"><thead><tr><th scope="col">Made</th><th scope="col">By</th><th scope="col">Role</th><th scope="col">State</th></tr></thead><tbody>
${opts.invites.map((i) => html`<tr><td>${when(i.createdAt)}</td><td>${i.createdBy === 'operator' ? 'operator' : opts.rows.find((r) => r.account.id === i.createdBy)?.account.email ?? i.createdBy}</td><td>${i.role}</td>
<td>${i.redeemedAt ? html`used ${when(i.redeemedAt)} by ${opts.rows.find((r) => r.account.id === i.redeemedBy)?.account.email ?? i.redeemedBy}` : Date.parse(i.expiresAt) <= opts.now.getTime() ? html`expired ${when(i.expiresAt)}` : html`open until ${when(i.expiresAt)}`}</td></tr>`)}</tbody></table></div>`}`;
}
