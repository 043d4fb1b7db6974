// Sign up, sign in, sign out. The forms carry a pre-session CSRF token (double submit with
// a SameSite=Strict cookie); a session cookie is set only after the session_started event
// is in the log. These routes log at warn only: an invite token rides in the sign-up URL,
// and no request body (a password) is ever logged anywhere.
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_TTL_MS } from '../../../../shared/src/domain/accounts/tokens.js';
import { ForbiddenError, NotFoundError, RateLimitedError, TrawlError, UnauthorizedError, ValidationError } from '../../../../shared/src/domain/errors.js';
import { field, resolveSession, secureCookies, sendPage, type ConsoleContext } from './context.js';
import { signInForm, signUpForm } from './pages/auth.js';
import { checkOrigin, clearCookie, PRESESSION_COOKIE, preSessionToken, readCookie, requireCsrf, SESSION_COOKIE, setCookie } from './security.js';

const SAFE_NEXT = /^\/console(?:\/[A-Za-z0-9_\-/.?=&%]*)?$/;
const safeNext = (next: string): string => (SAFE_NEXT.test(next) && !next.includes('//') ? next : '/console/keys');

function signedInCookie(ctx: ConsoleContext, request: FastifyRequest, reply: FastifyReply, token: string): void {
  const secure = secureCookies(ctx, request);
  setCookie(reply, SESSION_COOKIE, token, { maxAgeS: Math.floor(SESSION_TTL_MS / 1000), secure });
  clearCookie(reply, PRESESSION_COOKIE, secure);
}

export async function authRoutes(app: FastifyInstance, ctx: ConsoleContext): Promise<void> {
  const quiet = { logLevel: 'warn' as const };

  app.get('/signin', quiet, async (request, reply) => {
    if (await resolveSession(ctx, request)) return reply.redirect('/console/keys', 303);
    const next = (request.query as { next?: string }).next;
    const csrf = preSessionToken(request, reply, secureCookies(ctx, request));
    const signedOut = (request.query as { signedOut?: string }).signedOut === '1';
    return sendPage(reply, 'Sign in', undefined, null, signInForm({ csrf, signup: ctx.config.signup, signedOut, ...(next ? { next: safeNext(next) } : {}) }));
  });

  app.post('/signin', quiet, async (request, reply) => {
    const preToken = readCookie(request, PRESESSION_COOKIE);
    requireCsrf(request, preToken, ctx.deps.config.publicBaseUrl);
    const email = field(request, 'email', 300);
    const next = safeNext(field(request, 'next', 500));
    try {
      const { token } = await ctx.accounts.signIn({ email, password: field(request, 'password', 1024), address: request.ip });
      signedInCookie(ctx, request, reply, token);
      return reply.redirect(next, 303);
    } catch (err) {
      if (!(err instanceof UnauthorizedError || err instanceof RateLimitedError || err instanceof ForbiddenError)) throw err;
      if (err instanceof RateLimitedError) reply.header('retry-after', Math.ceil(err.retryAfterMs / 1000));
      return sendPage(reply, 'Sign in', undefined, null, signInForm({ csrf: preToken!, email, error: err.message, next, signup: ctx.config.signup }), err.status);
    }
  });

  app.get('/signup', quiet, async (request, reply) => {
    const invite = (request.query as { invite?: string }).invite;
    const csrf = preSessionToken(request, reply, secureCookies(ctx, request));
    if (invite) {
      try {
        const inviteId = await ctx.accounts.usableInvite(invite);
        const role = (await ctx.deps.store.invites.get(inviteId))?.role;
        return sendPage(reply, 'Create your account', undefined, null, signUpForm({ csrf, invite, ...(role ? { role } : {}) }));
      } catch (err) {
        if (!(err instanceof NotFoundError || err instanceof ForbiddenError)) throw err;
        return sendPage(reply, 'Create your account', undefined, null, signUpForm({ csrf, blocked: err.message }), err.status);
      }
    }
    if (ctx.config.signup !== 'open') {
      const blocked = ctx.config.signup === 'closed' ? 'Sign-up is closed on this server.' : 'Sign-up needs an invite link: ask an admin of this server for one.';
      return sendPage(reply, 'Create your account', undefined, null, signUpForm({ csrf, blocked }), 403);
    }
    return sendPage(reply, 'Create your account', undefined, null, signUpForm({ csrf }));
  });

  app.post('/signup', quiet, async (request, reply) => {
    const preToken = readCookie(request, PRESESSION_COOKIE);
    requireCsrf(request, preToken, ctx.deps.config.publicBaseUrl);
    const email = field(request, 'email', 300);
    const invite = field(request, 'invite', 200) || undefined;
    try {
      const { token } = await ctx.accounts.signUp({ email, password: field(request, 'password', 1024), invite });
      signedInCookie(ctx, request, reply, token);
      return reply.redirect('/console/keys?welcome=1', 303);
    } catch (err) {
      if (!(err instanceof ValidationError || err instanceof ForbiddenError || err instanceof NotFoundError || (err instanceof TrawlError && err.code === 'CONFLICT'))) throw err;
      return sendPage(reply, 'Create your account', undefined, null, signUpForm({ csrf: preToken!, email, error: err.message, ...(invite ? { invite } : {}) }), err.status);
    }
  });

  // A form on another site that posts here must not sign anyone out: the Origin is checked
  // first, and without a session (a cross-site POST does not carry the SameSite cookie) no
  // cookie is touched. Only a stale cookie that was sent is cleared.
  app.post('/signout', async (request, reply) => {
    checkOrigin(request, ctx.deps.config.publicBaseUrl);
    const session = await resolveSession(ctx, request);
    const secure = secureCookies(ctx, request);
    if (session) {
      requireCsrf(request, session.viewer.csrf, ctx.deps.config.publicBaseUrl);
      await ctx.accounts.signOut(session.token);
    }
    if (session || readCookie(request, SESSION_COOKIE)) clearCookie(reply, SESSION_COOKIE, secure);
    return reply.redirect(session ? '/console/signin?signedOut=1' : '/console/signin', 303);
  });
}
