// The web console (docs/console.md), served by the gateway at /console: server-rendered
// pages, one stylesheet, one small script. Accounts, invites and sessions are events like
// everything else (shared/src/domain/events/account.ts); the pages read the read models. Console
// pages are not API requests: they do not count against any key's rate limit.
//
// Errors: a page request gets a friendly HTML page with the status and request id; a JSON
// request (the progress poll, or Accept: application/json) gets RFC 7807 problem+json.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { loadServerSecret } from '../../../../shared/src/domain/webhooks.js';
import type { GatewayDeps } from '../deps.js';
import { problemOf, sendProblem, UNAVAILABLE_RETRY_AFTER_S } from '../plugins/problems.js';
import { WebhookSecretService } from '../webhooks/service.js';
import { ConsoleAccounts } from './accounts.js';
import { ASSETS } from './assets.js';
import { consoleConfig, type ConsoleConfig } from '../../../../shared/src/infra/console-config.js';
import { resolveSession, wantsJson, type ConsoleContext } from './context.js';
import { AccountJobs } from './jobs.js';
import { errorPage } from './layout.js';
import { authRoutes } from './routes-auth.js';
import { pageRoutes } from './routes-pages.js';
import { playgroundRoutes, type PlaygroundServices } from './routes-playground.js';
import { securityHeaders } from './security.js';
import { LoginThrottle } from './throttle.js';
import { madeOnce } from '../../../../shared/src/infra/made-once.js';

export interface ConsoleOptions {
  deps: GatewayDeps;
  /** The gateway's OpenAPI document (the API reference page renders it). */
  openapi: () => unknown;
  /** The API's services: the playground submits through them (absent: no playground). */
  playground?: PlaygroundServices;
  config?: ConsoleConfig;
  throttle?: LoginThrottle;
}

const FORM_BODY_LIMIT = 64 * 1024;

export async function consolePlugin(app: FastifyInstance, opts: ConsoleOptions): Promise<void> {
  const { deps } = opts;
  const config = opts.config ?? consoleConfig();
  const serverSecret = madeOnce(() => loadServerSecret(deps.nc.jetstream(), deps.config.webhookSigningSecret));
  const ctx: ConsoleContext = {
    deps, config, openapi: opts.openapi,
    accounts: new ConsoleAccounts({
      log: deps.log, store: deps.store, waiter: deps.waiter, clock: deps.clock, config, publicBaseUrl: deps.config.publicBaseUrl,
      throttle: opts.throttle ?? new LoginThrottle(deps.nc.jetstream()),
    }),
    jobs: new AccountJobs(deps.store, deps.log),
    secrets: new WebhookSecretService({
      log: deps.log, newId: deps.newId, clock: deps.clock,
      serverSecret,
    }),
  };

  app.get('/', { schema: { hide: true } }, async (_request, reply) => reply.redirect('/console', 302));

  await app.register(async (scope) => {
    scope.decorateRequest('signedIn', null);
    scope.addContentTypeParser('application/x-www-form-urlencoded', { parseAs: 'string', bodyLimit: FORM_BODY_LIMIT }, (_request, body, done) => {
      const fields: Record<string, string> = {};
      // The first value of a repeated field counts; nothing else is merged in.
      for (const [k, v] of new URLSearchParams(body as string)) if (!(k in fields)) fields[k] = v;
      done(null, fields);
    });
    scope.addHook('onSend', async (request, reply, payload) => {
      securityHeaders(reply);
      if (!request.url.startsWith('/console/assets/') && !reply.hasHeader('cache-control')) reply.header('cache-control', 'no-store');
      return payload;
    });
    scope.setErrorHandler(async (err, request, reply) => handleError(ctx, err, request, reply));
    scope.setNotFoundHandler(async (request, reply) => {
      const err = Object.assign(new Error(`no page ${request.method} ${request.url.split('?')[0]!.slice(0, 200)}`), { statusCode: 404 });
      return handleError(ctx, err, request, reply);
    });

    scope.get('/assets/:name', { schema: { hide: true } }, async (request, reply) => {
      const asset = ASSETS[(request.params as { name: string }).name];
      if (!asset) return reply.callNotFound();
      if (request.headers['if-none-match'] === asset.etag) return reply.code(304).send();
      return reply.type(asset.type).header('etag', asset.etag).header('cache-control', 'public, max-age=300').send(asset.body);
    });

    await scope.register(async (routes) => {
      routes.addHook('onRoute', (route) => { route.schema = { ...route.schema, hide: true }; });
      await authRoutes(routes, ctx);
      await pageRoutes(routes, ctx);
      if (opts.playground) await playgroundRoutes(routes, ctx, opts.playground);
    });
  }, { prefix: '/console' });
}

async function handleError(ctx: ConsoleContext, err: unknown, request: FastifyRequest, reply: FastifyReply): Promise<FastifyReply> {
  const problem = problemOf(err, request.id, ctx.deps.config.errorTypeBase);
  if (problem.status >= 500) request.log.error({ err }, 'console request failed');
  else request.log.info({ code: problem.code }, 'console request refused');
  if (problem.code === 'RATE_LIMITED' && !reply.hasHeader('retry-after')) reply.header('retry-after', 900);
  if (problem.status === 503) reply.header('retry-after', UNAVAILABLE_RETRY_AFTER_S);
  if (wantsJson(request)) return sendProblem(reply, problem);
  // With NATS or the store unreachable, looking up the session would only wait for it again.
  const session = problem.status === 503 ? null : await resolveSession(ctx, request).catch(() => null);
  const title = problem.status === 404 ? 'Page not found' : problem.status === 403 ? 'Not allowed' : problem.status === 401 ? 'Please sign in'
    : problem.status === 503 ? 'Temporarily unavailable' : problem.status >= 500 ? 'Something went wrong' : problem.title;
  return reply.code(problem.status).type('text/html; charset=utf-8').send(errorPage(problem.status, title, problem.detail, request.id, session?.viewer ?? null));
}
