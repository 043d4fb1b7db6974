// What every console route shares: the services, who is signed in, and the helpers that
// answer with a page. One instance per gateway, built in ./plugin.ts.
import type { FastifyReply, FastifyRequest } from 'fastify';
import { csrfTokenOf } from '../../../../shared/src/domain/accounts/tokens.js';
import { ForbiddenError, UnauthorizedError } from '../../../../shared/src/domain/errors.js';
import type { AccountDoc } from '../../../../shared/src/infra/store/index.js';
import type { GatewayDeps } from '../deps.js';
import type { WebhookSecretService } from '../webhooks/service.js';
import type { ConsoleAccounts } from './accounts.js';
import type { ConsoleConfig } from '../../../../shared/src/infra/console-config.js';
import type { SafeHtml } from './html.js';
import type { AccountJobs } from './jobs.js';
import { page, type Viewer } from './layout.js';
import { isTls, readCookie, requireCsrf, SESSION_COOKIE } from './security.js';

export interface SignedIn {
  account: AccountDoc;
  token: string;
  viewer: Viewer;
}

declare module 'fastify' {
  interface FastifyRequest {
    signedIn: SignedIn | null;
  }
}

export interface ConsoleContext {
  deps: GatewayDeps;
  config: ConsoleConfig;
  accounts: ConsoleAccounts;
  jobs: AccountJobs;
  secrets: WebhookSecretService;
  openapi: () => unknown;
}

export const viewerOf = (account: AccountDoc, token: string): Viewer => ({
  accountId: account.id, email: account.email, role: account.role, plan: account.plan, csrf: csrfTokenOf(token),
});

/** Reads the session cookie; null when there is none or it signs nobody in. */
export async function resolveSession(ctx: ConsoleContext, request: FastifyRequest): Promise<SignedIn | null> {
  const token = readCookie(request, SESSION_COOKIE);
  if (!token) return null;
  const account = await ctx.accounts.signedIn(token);
  return account ? { account, token, viewer: viewerOf(account, token) } : null;
}

/** Whether the client wants JSON rather than a page (the console's own JSON endpoints, API-style callers). */
export function wantsJson(request: FastifyRequest): boolean {
  if (request.url.split('?')[0]!.endsWith('.json')) return true;
  const accept = request.headers.accept ?? '';
  return !accept.includes('text/html') && (accept.includes('application/json') || accept.includes('application/problem+json'));
}

/**
 * preHandler of every page behind sign-in: a page request without a session goes to the
 * sign-in form (and comes back after); anything else is 401. Every POST must carry the
 * session's CSRF token.
 */
export function signedInOnly(ctx: ConsoleContext, opts: { admin?: boolean } = {}) {
  return async (request: FastifyRequest, reply: FastifyReply): Promise<void> => {
    const session = await resolveSession(ctx, request);
    if (!session) {
      if (request.method === 'GET' && !wantsJson(request)) {
        await reply.redirect(`/console/signin?next=${encodeURIComponent(request.url)}`, 303);
        return;
      }
      throw new UnauthorizedError('sign in to the console first');
    }
    request.signedIn = session;
    if (request.method !== 'GET' && request.method !== 'HEAD') requireCsrf(request, session.viewer.csrf, ctx.deps.config.publicBaseUrl);
    if (opts.admin && session.account.role !== 'admin') throw new ForbiddenError('this page is for admins of this server');
  };
}

export function sendPage(reply: FastifyReply, title: string, current: string | undefined, viewer: Viewer | null, body: SafeHtml, status = 200): FastifyReply {
  return reply.code(status).type('text/html; charset=utf-8').send(page({ title, ...(current ? { current } : {}), viewer, body }));
}

export const secureCookies = (ctx: ConsoleContext, request: FastifyRequest): boolean => isTls(request, ctx.deps.config.publicBaseUrl);

/** A form field as a trimmed string (absent: ''), at most `max` characters. */
export function field(request: FastifyRequest, name: string, max = 1000): string {
  const body = request.body as Record<string, unknown> | undefined;
  const value = body?.[name];
  return typeof value === 'string' ? value.slice(0, max) : '';
}
