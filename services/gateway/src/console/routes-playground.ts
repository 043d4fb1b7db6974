// The playground's routes: the form, and its POST that submits a scrape through the same
// service as POST /api/v1/scrape (validated by the same schema, limited by the same plan)
// as a key the account owns, then opens the job's page.
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { NotFoundError, TrawlError, ValidationError } from '../../../../shared/src/errors.js';
import { ScrapeRequestSchema, type ScrapeRequest } from '../../../../shared/src/scrape-options.js';
import { validatorCompiler } from '../plugins/validation.js';
import type { ScrapeService } from '../scrape/service.js';
import { field, sendPage, signedInOnly, type ConsoleContext } from './context.js';
import { DEFAULT_VALUES, PLAYGROUND_FORMATS, playgroundPage, type PlaygroundValues } from './pages/playground.js';

const validate = validatorCompiler({ schema: ScrapeRequestSchema, httpPart: 'body', method: 'POST', url: '/api/v1/scrape' }) as (data: unknown) => { value?: unknown; error?: Error };

function valuesOf(request: FastifyRequest): PlaygroundValues {
  const on = (name: string): boolean => field(request, name, 10) !== '';
  return {
    keyId: field(request, 'keyId', 40), url: field(request, 'url', 8192).trim(),
    formats: PLAYGROUND_FORMATS.filter((f) => on(`format_${f}`)),
    onlyMainContent: on('onlyMainContent'), mobile: on('mobile'),
    waitFor: field(request, 'waitFor', 500).trim(), timeout: field(request, 'timeout', 12).trim(),
  };
}

export async function playgroundRoutes(app: FastifyInstance, ctx: ConsoleContext, scrapes: ScrapeService): Promise<void> {
  const member = { preHandler: signedInOnly(ctx) };
  const base = ctx.deps.config.publicBaseUrl;
  const activeKeys = async (accountId: string) => (await ctx.jobs.keys(accountId)).filter((k) => !k.revokedAt);

  app.get('/playground', member, async (request, reply) => {
    const { account, viewer } = request.signedIn!;
    return sendPage(reply, 'Playground', 'playground', viewer, playgroundPage({ csrf: viewer.csrf, keys: await activeKeys(account.id), values: DEFAULT_VALUES, baseUrl: base }));
  });

  app.post('/playground', member, async (request, reply) => {
    const { account, viewer } = request.signedIn!;
    const keys = await activeKeys(account.id);
    const values = valuesOf(request);
    try {
      const key = keys.find((k) => k.id === values.keyId);
      if (!key) throw new NotFoundError('choose one of your active keys');
      if (values.timeout && !/^\d+$/.test(values.timeout)) throw new ValidationError('timeout must be a whole number of milliseconds', 'timeout');
      const body: Record<string, unknown> = {
        url: values.url, formats: values.formats.length ? values.formats : ['markdown'], onlyMainContent: values.onlyMainContent, mobile: values.mobile,
        ...(values.waitFor ? { waitFor: /^\d+$/.test(values.waitFor) ? Number(values.waitFor) : values.waitFor } : {}),
        ...(values.timeout ? { timeout: Number(values.timeout) } : {}),
      };
      const checked = validate(body);
      if (checked.error) throw checked.error;
      const result = await scrapes.submit({ keyId: key.id, plan: key.plan }, body as ScrapeRequest);
      return reply.redirect(`/console/jobs/scrape/${result.kind === 'cached' ? result.job.id : result.id}`, 303);
    } catch (err) {
      if (!(err instanceof TrawlError) || err.status >= 500) throw err;
      return sendPage(reply, 'Playground', 'playground', viewer, playgroundPage({ csrf: viewer.csrf, keys, values, error: err.message, baseUrl: base }), err.status);
    }
  });
}
