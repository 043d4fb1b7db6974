// The pages behind sign-in: keys, jobs, usage, API reference, admin. Every handler reads
// only the signed-in account's data: keys by account, jobs through keys the account owns
// (AccountJobs.load answers "not found" for anyone else's).
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createKey, revokeKey } from '../../../../shared/src/domain/api-keys/admin.js';
import { KeyStateError } from '../../../../shared/src/domain/api-keys/decider.js';
import { NotFoundError, ValidationError } from '../../../../shared/src/domain/errors.js';
import { newApiKey } from '../../../../shared/src/infra/ids.js';
import { PLAN_LIMITS, PLANS, type Plan } from '../../../../shared/src/domain/plans.js';
import type { ApiKeyDoc } from '../../../../shared/src/infra/store/index.js';
import { payloadBytes, sendStoredDocument } from '../routes/stored-document.js';
import { MAX_GRACE_SECONDS, screenshotMediaType } from '../../../../shared/src/api/index.js';
import { TOP_PLAN } from './accounts.js';
import { field, secureCookies, sendPage, signedInOnly, type ConsoleContext, type SignedIn } from './context.js';
import { isJobKind, JOB_STATUSES, TIMELINE_MAX } from './jobs.js';
import { newFlashScope, stashFlash, takeFlash } from './flash.js';
import { adminPage } from './pages/admin.js';
import { apiPage, type OpenApiDoc } from './pages/api.js';
import { jobPage as jobResultPage, jobPages, zipOf } from './job-pages.js';
import { resultPageView } from './pages/job-results.js';
import { jobPage, jobsPage } from './pages/jobs.js';
import { keysPage, webhookSecretPage, type KeyRow } from './pages/keys.js';
import { usagePage } from './pages/usage.js';
import { monitorRunsPage, monitorsPage } from './pages/monitors.js';
import { MonitorService } from '../monitors/service.js';

const MAX_ACTIVE_KEYS = 50;
/** A monitor's runs shown on its page, newest first. */
const MONITOR_RUNS_MAX = 50;
const ACCOUNT_ID = /^[0-9a-f]{20}$/;
const DAY_MS = 24 * 3600 * 1000;
/** Pages listed on a crawl's or batch's page (the downloads hold all). */
const PAGES_SHOWN = 200;

const me = (request: FastifyRequest): SignedIn => request.signedIn!;

export async function pageRoutes(app: FastifyInstance, ctx: ConsoleContext): Promise<void> {
  const { store, log, waiter, clock, config } = ctx.deps;
  const member = { preHandler: signedInOnly(ctx) };
  const admin = { preHandler: signedInOnly(ctx, { admin: true }) };

  /** The account's own key, not revoked; "not found" for anyone else's. */
  async function ownKey(request: FastifyRequest, keyId: string): Promise<ApiKeyDoc> {
    const key = /^[0-9a-f]{20}$/.test(keyId) ? await store.apiKeys.get(keyId) : null;
    if (!key || key.accountId !== me(request).account.id) throw new NotFoundError('no key with this id in your account');
    return key;
  }

  async function keyRows(accountId: string): Promise<KeyRow[]> {
    const keys = await ctx.jobs.keys(accountId);
    return Promise.all(keys.map(async (key) => {
      const one = { limit: 1, offset: 0 };
      const [s, c, b] = await Promise.all([store.scrapeJobs.listBy(key.id, one), store.crawlJobs.listBy(key.id, one), store.batchJobs.listBy(key.id, one)]);
      const latest = [s[0]?.createdAt, c[0]?.createdAt, b[0]?.createdAt].filter((x): x is string => !!x).sort().at(-1) ?? null;
      return { key, lastJobAt: latest };
    }));
  }

  app.get('/', member, async (_request, reply) => reply.redirect('/console/keys', 303));

  app.get('/keys', member, async (request, reply) => {
    const { account, viewer, token } = me(request);
    // Finishes a plan change that was interrupted before all keys followed it.
    const rows = await keyRows(account.id);
    if (rows.some((r) => !r.key.revokedAt && r.key.plan !== account.plan)) await ctx.accounts.syncKeyPlans(account.id, account.plan);
    // Just made (post/redirect/get, ./flash.ts): shown once, from the cookie the POST set.
    const createdId = (request.query as { created?: string }).created;
    const made = createdId && /^[0-9a-f]{20}$/.test(createdId) ? rows.find((r) => r.key.id === createdId)?.key : undefined;
    const key = made ? takeFlash(request, reply, { sessionToken: token, scope: `key:${made.id}`, secure: secureCookies(ctx, request) }) : null;
    if (key) reply.header('cache-control', 'no-store');
    // Right after sign-up (routes-auth.ts): the next steps.
    const welcome = (request.query as { welcome?: string }).welcome === '1' ? {
      baseUrl: config.publicBaseUrl, plan: account.plan, topPlan: account.plan === TOP_PLAN, admin: account.role === 'admin',
      adopted: rows.filter((r) => r.key.adoptedAt && !r.key.revokedAt).map((r) => ({ id: r.key.id, label: r.key.label })),
    } : undefined;
    return sendPage(reply, 'API keys', 'keys', viewer, keysPage({ csrf: viewer.csrf, rows: await keyRows(account.id), baseUrl: config.publicBaseUrl, welcome, ...(made && key ? { created: { key, label: made.label } } : {}) }));
  });

  app.post('/keys', member, async (request, reply) => {
    const { account, viewer } = me(request);
    const label = field(request, 'label', 500).trim();
    let error: string | undefined;
    if (!label || label.length > 200 || /\p{Cc}/u.test(label)) error = 'The label must be 1 to 200 characters, without control characters.';
    else if ((await ctx.jobs.keys(account.id)).filter((k) => !k.revokedAt).length >= MAX_ACTIVE_KEYS) error = `An account has at most ${MAX_ACTIVE_KEYS} active keys: revoke one first.`;
    if (error) return sendPage(reply, 'API keys', 'keys', viewer, keysPage({ csrf: viewer.csrf, rows: await keyRows(account.id), error, baseUrl: config.publicBaseUrl }), 400);
    const made = await createKey({ log, now: clock }, account.plan, label, newApiKey(), account.id);
    if (made.seq !== null) await waiter.waitFor(made.seq);
    // Post/redirect/get: a reload of the page that shows the key must not post this form again.
    stashFlash(reply, { sessionToken: me(request).token, scope: `key:${made.keyId}`, value: made.key, secure: secureCookies(ctx, request) });
    return reply.redirect(`/console/keys?created=${made.keyId}`, 303);
  });

  app.post('/keys/:keyId/revoke', member, async (request, reply) => {
    const key = await ownKey(request, (request.params as { keyId: string }).keyId);
    try {
      const outcome = await revokeKey({ log, now: clock }, key.id, 'revoked in the console');
      if (outcome.seq !== null) await waiter.waitFor(outcome.seq);
    } catch (err) {
      if (!(err instanceof KeyStateError)) throw err; // revoked already: the state asked for holds
    }
    return reply.redirect('/console/keys', 303);
  });

  app.get('/keys/:keyId/webhook-secret', member, async (request, reply) => {
    const { viewer } = me(request);
    const key = await ownKey(request, (request.params as { keyId: string }).keyId);
    if (key.revokedAt) throw new NotFoundError('this key is revoked');
    const current = await ctx.secrets.current({ keyId: key.id, plan: key.plan });
    // After a rotation (post/redirect/get): its notice, while it is still the current generation.
    const q = request.query as { rotated?: string; previousValidUntil?: string };
    const rotated = q.rotated === String(current.generation) && q.previousValidUntil && !Number.isNaN(Date.parse(q.previousValidUntil))
      ? { previousValidUntil: new Date(q.previousValidUntil).toISOString() } : undefined;
    reply.header('cache-control', 'no-store');
    return sendPage(reply, 'Webhook secret', 'keys', viewer, webhookSecretPage({ csrf: viewer.csrf, key, ...current, rotated }));
  });

  app.post('/keys/:keyId/webhook-secret/rotate', member, async (request, reply) => {
    const key = await ownKey(request, (request.params as { keyId: string }).keyId);
    if (key.revokedAt) throw new NotFoundError('this key is revoked');
    const grace = Number(field(request, 'graceSeconds', 12) || 86_400);
    if (!Number.isInteger(grace) || grace < 0 || grace > MAX_GRACE_SECONDS) throw new ValidationError(`graceSeconds must be an integer from 0 to ${MAX_GRACE_SECONDS}`, 'graceSeconds');
    const rotated = await ctx.secrets.rotate({ keyId: key.id, plan: key.plan }, grace);
    // Post/redirect/get: reloading the page that shows the new secret must not rotate again.
    // (The secret itself is shown by the GET, as always: no need to carry it.)
    const query = new URLSearchParams({ rotated: String(rotated.generation), previousValidUntil: rotated.previousSecretValidUntil });
    return reply.redirect(`/console/keys/${key.id}/webhook-secret?${query}`, 303);
  });

  app.get('/jobs', member, async (request, reply) => {
    const { account, viewer } = me(request);
    const q = request.query as { kind?: string; status?: string };
    const kind = q.kind && isJobKind(q.kind) ? q.kind : undefined;
    const status = q.status && (JOB_STATUSES as readonly string[]).includes(q.status) ? q.status : undefined;
    const [rows, keys] = await Promise.all([ctx.jobs.list(account.id, { kind, status }), ctx.jobs.keys(account.id)]);
    return sendPage(reply, 'Jobs', 'jobs', viewer, jobsPage({ rows, keys: new Map(keys.map((k) => [k.id, k])), kind, status }));
  });

  app.get('/jobs/:kind/:id', member, async (request, reply) => {
    const { account, viewer } = me(request);
    const { kind, id } = request.params as { kind: string; id: string };
    const job = await ctx.jobs.load(account.id, kind, id);
    const [events, counts] = await Promise.all([ctx.jobs.timeline(job), ctx.jobs.progress(job)]);
    const pages = job.kind === 'scrape' || job.kind === 'map' ? [] : (await jobPages(store, job, PAGES_SHOWN)).pages;
    return sendPage(reply, `${job.kind} job`, 'jobs', viewer, jobPage({ baseUrl: config.publicBaseUrl, job, events, timelineMax: TIMELINE_MAX, counts, pages, pagesMax: PAGES_SHOWN }));
  });

  /** A crawl or batch of the account's; "not found" for a scrape or anyone else's. */
  async function pagedJob(request: FastifyRequest) {
    const { kind, id } = request.params as { kind: string; id: string };
    if (kind !== 'crawl' && kind !== 'batch') throw new NotFoundError('only a crawl or a batch has pages');
    const job = await ctx.jobs.load(me(request).account.id, kind, id);
    if (job.kind === 'scrape' || job.kind === 'map') throw new NotFoundError('only a crawl or a batch has pages');
    return job;
  }

  app.get('/jobs/:kind/:id/pages/:pageKey', member, async (request, reply) => {
    const job = await pagedJob(request);
    const pageKey = (request.params as { pageKey: string }).pageKey;
    const one = /^[A-Za-z0-9_-]{1,200}$/.test(pageKey) ? await jobResultPage(store, job, pageKey) : null;
    if (!one) throw new NotFoundError(`this ${job.kind} has no such page`);
    return sendPage(reply, one.metadata?.title ?? one.url, 'jobs', me(request).viewer, resultPageView(job.kind, job.doc.id, one));
  });

  // The whole job: every page as JSON, or its markdown as a ZIP (job-pages.ts).
  app.get('/jobs/:kind/:id/pages.json', member, async (request, reply) => {
    const job = await pagedJob(request);
    const { pages, truncated } = await jobPages(store, job);
    return reply.type('application/json; charset=utf-8').header('content-disposition', `attachment; filename="${job.kind}-${job.doc.id}.json"`)
      .send(JSON.stringify({ id: job.doc.id, kind: job.kind, status: job.doc.status, ...(truncated ? { truncated: true } : {}), data: pages }, null, 2));
  });

  app.get('/jobs/:kind/:id/pages.zip', member, async (request, reply) => {
    const job = await pagedJob(request);
    const { pages, truncated } = await jobPages(store, job);
    const zip = await zipOf(pages, truncated);
    return reply.type('application/zip').header('content-disposition', `attachment; filename="${job.kind}-${job.doc.id}.zip"`).send(zip);
  });

  app.get('/jobs/:kind/:id/progress.json', member, async (request, reply) => {
    const { kind, id } = request.params as { kind: string; id: string };
    const job = await ctx.jobs.load(me(request).account.id, kind, id);
    reply.header('cache-control', 'no-store');
    return ctx.jobs.progress(job);
  });

  app.get('/jobs/scrape/:id/screenshot', member, async (request, reply) => {
    const job = await ctx.jobs.load(me(request).account.id, 'scrape', (request.params as { id: string }).id);
    const shot = job.kind === 'scrape' ? (job.doc.content ?? job.source?.content)?.screenshot : undefined;
    if (!shot) throw new NotFoundError('this job has no screenshot');
    if (Date.parse(shot.expiresAt) <= clock().getTime()) throw new NotFoundError(`the screenshot expired at ${shot.expiresAt}`);
    const bytes = await payloadBytes(ctx.deps.payloads)(shot);
    return reply.type(screenshotMediaType(shot.format)).header('cache-control', 'private, max-age=300').send(Buffer.from(bytes));
  });

  // A document page's bytes for a signed-in member (the API's /scrape/:id/document needs a key).
  app.get('/jobs/scrape/:id/document', member, async (request, reply) => {
    const job = await ctx.jobs.load(me(request).account.id, 'scrape', (request.params as { id: string }).id);
    const info = job.kind === 'scrape' ? (job.doc.content ?? job.source?.content)?.document : undefined;
    return sendStoredDocument(info, payloadBytes(ctx.deps.payloads), reply);
  });

  const monitors = new MonitorService({ log, newId: () => '', clock, urlPolicy: { allowCidrs: config.ssrfAllowCidrs }, minIntervalMs: config.monitorMinIntervalMs });
  app.get('/monitors', member, async (request, reply) => {
    const { account, viewer } = me(request);
    const keys = (await ctx.jobs.keys(account.id)).filter((k) => !k.revokedAt);
    const rows = (await Promise.all(keys.map(async (k) => {
      const caller = { keyId: k.id, plan: k.plan };
      const list = await monitors.list(caller);
      return Promise.all(list.map(async (m) => ({ keyLabel: k.label, keyId: k.id, monitor: await monitors.get(caller, m.id) })));
    }))).flat();
    return sendPage(reply, 'Monitors', 'monitors', viewer, monitorsPage({ rows, limit: PLAN_LIMITS[account.plan].monitors, plan: account.plan }));
  });

  // One monitor with its runs and diffs: only through a key of the account (revoked ones
  // too: their monitors' history stays readable); anything else is "not found".
  app.get('/monitors/:keyId/:id', member, async (request, reply) => {
    const { account, viewer } = me(request);
    const { keyId, id } = request.params as { keyId: string; id: string };
    const key = (await ctx.jobs.keys(account.id)).find((k) => k.id === keyId);
    if (!key) throw new NotFoundError(`no monitor with id "${id}"`);
    const caller = { keyId: key.id, plan: key.plan };
    const monitor = await monitors.get(caller, id);
    const runs = await monitors.runs(caller, id, MONITOR_RUNS_MAX);
    return sendPage(reply, 'Monitor', 'monitors', viewer, monitorRunsPage({ keyLabel: key.label, keyId: key.id, monitor, runs, max: MONITOR_RUNS_MAX }));
  });

  app.get('/usage', member, async (request, reply) => {
    const { account, viewer } = me(request);
    const now = clock();
    const month = now.toISOString().slice(0, 7);
    const keys = await ctx.jobs.keys(account.id);
    const perDay = new Map<string, number>();
    for (let i = 29; i >= 0; i--) perDay.set(new Date(now.getTime() - i * DAY_MS).toISOString().slice(0, 10), 0);
    const rows = await Promise.all(keys.map(async (k) => {
      const [usage, daily] = await Promise.all([store.keyUsage.get(k.id), store.keyDailyPages.get(k.id)]);
      for (const [day, n] of Object.entries(daily?.days ?? {})) if (perDay.has(day)) perDay.set(day, perDay.get(day)! + n);
      return { id: k.id, label: k.label, plan: k.plan, revoked: !!k.revokedAt, monthPages: usage?.month === month ? usage.pages : 0, runningJobs: Object.keys(usage?.activeJobs ?? {}).length };
    }));
    return sendPage(reply, 'Usage', 'usage', viewer, usagePage({
      month, rows, plan: account.plan, quotas: config.quotas, rateLimits: config.rateLimits,
      days: [...perDay].map(([day, pages]) => ({ day, pages })),
    }));
  });

  app.get('/api', member, async (request, reply) => sendPage(reply, 'API reference', 'api', me(request).viewer, apiPage(ctx.openapi() as OpenApiDoc, `${config.publicBaseUrl}/api/v1`)));

  // ---- admin --------------------------------------------------------------------------

  async function renderAdmin(request: FastifyRequest, extra: { invited?: { link: string; expiresAt: string; role: string }; notice?: string } = {}) {
    const { viewer } = me(request);
    const month = clock().toISOString().slice(0, 7);
    const [accounts, invites, operatorKeys] = await Promise.all([store.accounts.list({ limit: 500, offset: 0 }), store.invites.list({ limit: 50, offset: 0 }), ctx.accounts.operatorKeys()]);
    const rows = await Promise.all(accounts.map(async (account) => {
      const keys = await store.apiKeys.listBy(account.id, { limit: 500, offset: 0 });
      const usages = await Promise.all(keys.map((k) => store.keyUsage.get(k.id)));
      return { account, activeKeys: keys.filter((k) => !k.revokedAt).length, monthPages: usages.reduce((n, u) => n + (u?.month === month ? u.pages : 0), 0) };
    }));
    return adminPage({ csrf: viewer.csrf, viewerId: viewer.accountId, rows, invites, operatorKeys, now: clock(), ...extra });
  }

  /** What the last admin action did (post/redirect/get): read back from the read models (the URL names only ids and a count). */
  async function adminNotice(q: Record<string, string | undefined>): Promise<string | undefined> {
    if (q.plan && ACCOUNT_ID.test(q.plan)) {
      const account = await store.accounts.get(q.plan);
      if (account) return `${account.email} is on the ${account.plan} plan now, and so are its active keys.`;
    }
    if (q.inviteRevoked && /^[0-9a-f]{20}$/.test(q.inviteRevoked) && (await store.invites.get(q.inviteRevoked))?.revokedAt) return 'The invite is revoked: its link no longer works.';
    if (q.adopted && /^\d{1,4}$/.test(q.adopted)) return `${q.adopted} operator key${q.adopted === '1' ? '' : 's'} moved into your account: their jobs and usage show under Jobs and Usage.`;
    return undefined;
  }

  const accountParam = (request: FastifyRequest): string => {
    const { accountId } = request.params as { accountId: string };
    if (!ACCOUNT_ID.test(accountId)) throw new NotFoundError('no such account');
    return accountId;
  };

  app.get('/admin', admin, async (request, reply) => {
    // Just made (post/redirect/get, ./flash.ts): the invite link, shown once.
    const scope = (request.query as { invited?: string }).invited;
    const stashed = scope && /^[0-9a-f]{24}$/.test(scope) ? takeFlash(request, reply, { sessionToken: me(request).token, scope: `invite:${scope}`, secure: secureCookies(ctx, request) }) : null;
    const invited = stashed ? JSON.parse(stashed) as { link: string; expiresAt: string; role: string } : undefined;
    const notice = await adminNotice(request.query as Record<string, string | undefined>);
    return sendPage(reply, 'Admin', 'admin', me(request).viewer, await renderAdmin(request, { ...(invited ? { invited } : {}), ...(notice ? { notice } : {}) }));
  });

  app.post('/admin/invites', admin, async (request, reply) => {
    const role = field(request, 'role', 20) === 'admin' ? 'admin' : 'member';
    const made = await ctx.accounts.invite(me(request).account, role);
    // Post/redirect/get: reloading the page that shows the link must not make another invite.
    const scope = newFlashScope();
    stashFlash(reply, { sessionToken: me(request).token, scope: `invite:${scope}`, value: JSON.stringify({ ...made, role }), secure: secureCookies(ctx, request) });
    return reply.redirect(`/console/admin?invited=${scope}`, 303);
  });

  app.post('/admin/accounts/:accountId/plan', admin, async (request, reply) => {
    const plan = field(request, 'plan', 20);
    if (!(PLANS as readonly string[]).includes(plan)) throw new ValidationError(`plan must be one of ${PLANS.join(', ')}`, 'plan');
    const accountId = accountParam(request);
    await ctx.accounts.changePlan(me(request).account, accountId, plan as Plan);
    return reply.redirect(`/console/admin?plan=${accountId}`, 303);
  });

  app.post('/admin/invites/:inviteId/revoke', admin, async (request, reply) => {
    const { inviteId } = request.params as { inviteId: string };
    if (!/^[0-9a-f]{20}$/.test(inviteId) || !(await store.invites.get(inviteId))) throw new NotFoundError('no such invite');
    await ctx.accounts.revokeInvite(me(request).account, inviteId);
    return reply.redirect(`/console/admin?inviteRevoked=${inviteId}`, 303);
  });

  // Keys no account owns (npm start's, BOOTSTRAP_API_KEYS, npm run keys): into the admin's account.
  app.post('/admin/operator-keys/adopt', admin, async (request, reply) => {
    const keyId = field(request, 'keyId', 40);
    const moved = await ctx.accounts.adoptOperatorKeys(me(request).account, keyId ? [keyId] : undefined);
    return reply.redirect(`/console/admin?adopted=${moved}`, 303);
  });

  for (const action of ['disable', 'enable'] as const) {
    app.post(`/admin/accounts/:accountId/${action}`, admin, async (request, reply) => {
      await ctx.accounts.setDisabled(me(request).account, accountParam(request), action === 'disable');
      return reply.redirect('/console/admin', 303);
    });
  }
}
