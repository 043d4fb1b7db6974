// The usage page: this month's pages against each key's quota, running jobs against the
// concurrency limit, each key's requests-per-minute limit, and the account's pages per
// day for 30 days (an SVG bar chart: no script, and readable as a table too).
import { PLAN_LIMITS, type Plan } from '../../../../../shared/src/domain/plans.js';
import { html, type SafeHtml } from '../html.js';

export interface KeyUsageRow {
  id: string;
  label: string;
  plan: Plan;
  revoked: boolean;
  monthPages: number;
  runningJobs: number;
}

export function usagePage(opts: { month: string; rows: KeyUsageRow[]; days: { day: string; pages: number }[]; plan: Plan; quotas: boolean; rateLimits: boolean }): SafeHtml {
  const limits = PLAN_LIMITS[opts.plan];
  const active = opts.rows.filter((r) => !r.revoked);
  const pages = opts.rows.reduce((n, r) => n + r.monthPages, 0);
  const running = opts.rows.reduce((n, r) => n + r.runningJobs, 0);
  return html`<h1>Usage</h1>
<p>Your plan is <strong>${opts.plan}</strong>. Its limits apply to each key: ${limits.monthlyPages.toLocaleString('en')} pages a month,
${limits.concurrentJobs} jobs running at once, ${limits.requestsPerMinute} requests a minute${opts.quotas ? '' : ' (quotas are off on this server)'}${opts.rateLimits ? '' : ' (rate limits are off on this server)'}.</p>
<div class="cards">
<div class="card"><div class="muted small">Pages in ${opts.month} (all keys)</div><div class="big" data-testid="month-pages">${pages}</div></div>
<div class="card"><div class="muted small">Jobs running now (all keys)</div><div class="big">${running}</div></div>
<div class="card"><div class="muted small">Active keys</div><div class="big">${active.length}</div></div></div>
<h2>Per key</h2>
${opts.rows.length === 0 ? html`<p class="muted">No keys yet.</p>` : html`<div class="table-wrap"><table class="stack"><thead><tr><th scope="col">Key</th><th scope="col">Pages this month</th><th scope="col">Running jobs</th><th scope="col">Requests per minute</th></tr></thead><tbody>
${opts.rows.map((r) => {
    const l = PLAN_LIMITS[r.plan];
    return html`<tr><td data-label="Key"><div>${r.label} <span class="mono small muted">${r.id}</span>${r.revoked ? html` <span class="badge badge-revoked">revoked</span>` : ''}</div></td>
<td data-label="Pages"><div>${r.monthPages} of ${l.monthlyPages.toLocaleString('en')}<br><meter min="0" max="${l.monthlyPages}" value="${r.monthPages}" aria-label="pages used of the monthly quota">${r.monthPages}</meter></div></td>
<td data-label="Running">${r.runningJobs} of ${l.concurrentJobs}</td><td data-label="Per minute">limit ${l.requestsPerMinute}</td></tr>`;
  })}</tbody></table></div>`}
<p class="muted small">Requests per minute are counted in a one-minute window that is not kept; the console shows each key's limit, and the API answers with <code>X-RateLimit-Remaining</code>.</p>
<h2 id="per-day">Pages per day, last 30 days</h2>
${chart(opts.days)}`;
}

function chart(days: { day: string; pages: number }[]): SafeHtml {
  const max = Math.max(1, ...days.map((d) => d.pages));
  const w = 600, h = 160, pad = 24, bw = (w - pad) / days.length;
  return html`<figure><svg class="chart" viewBox="0 0 ${w} ${h + 20}" role="img" aria-labelledby="chart-title"><title id="chart-title">Pages per day over the last 30 days; the most in one day: ${max}</title>
<line x1="${pad}" y1="${h}" x2="${w}" y2="${h}" stroke="#8c959f"/>
<text x="0" y="10">${max}</text><text x="0" y="${h}">0</text>
${days.map((d, i) => {
    const bh = Math.round((d.pages / max) * (h - 12));
    return html`<rect x="${(pad + i * bw + 1).toFixed(1)}" y="${h - bh}" width="${Math.max(1, bw - 2).toFixed(1)}" height="${bh}" fill="#0a58ca"><title>${d.day}: ${d.pages} pages</title></rect>`;
  })}
<text x="${pad}" y="${h + 14}">${days[0]?.day ?? ''}</text><text x="${w - 62}" y="${h + 14}">${days.at(-1)?.day ?? ''}</text></svg>
<figcaption class="muted small">Every page a browser loaded for your keys (scrapes, crawl and batch pages) and each map request; cache hits count 0.</figcaption></figure>
<details><summary>As a table</summary><div class="table-wrap"><table><thead><tr><th scope="col">Day</th><th scope="col">Pages</th></tr></thead><tbody>
${days.filter((d) => d.pages > 0).map((d) => html`<tr><td>${d.day}</td><td>${d.pages}</td></tr>`)}</tbody></table></div></details>`;
}
