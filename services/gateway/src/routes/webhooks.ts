// Webhook signing secret endpoints: read the caller's current secret, and rotate it.
// Handlers are thin: the schemas validate, the service acts. Registered with one line in
// app.ts.
import type { SwaggerTransformObject } from '@fastify/swagger';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { loadServerSecret } from '../../../../shared/src/domain/webhooks.js';
import type { RouteDeps } from '../deps.js';
import { DEFAULT_GRACE_SECONDS, ProblemSchema, RotateWebhookSecretBody, WebhookSecretRotation, WebhookSecretView } from '../../../../shared/src/api/index.js';
import { WebhookSecretService } from '../webhooks/service.js';
import { madeOnce } from '../../../../shared/src/infra/made-once.js';

const ROTATE_PATH = '/webhooks/secret/rotate';

const errors = { 400: ProblemSchema, 401: ProblemSchema, 409: ProblemSchema };

export const webhookRoutes: FastifyPluginAsyncTypebox<RouteDeps> = async (app, deps) => {
  // Loaded on first use: the KV bucket may be created by another service at start-up.
  const serverSecret = madeOnce(() => loadServerSecret(deps.nc.jetstream(), deps.config.webhookSigningSecret));
  const secrets = new WebhookSecretService({
    log: deps.log, newId: deps.newId, clock: deps.clock,
    serverSecret,
  });

  // The rotate body is optional. Many clients send Content-Type: application/json on every
  // POST, body or not, so in this plugin (only) an empty JSON body means `{}` too, instead
  // of the 400 an empty body gets elsewhere; anything else goes to Fastify's own parser.
  const json = app.getDefaultJsonParser('error', 'error');
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (request, body, done) => {
    if (body.length === 0) done(null, {});
    else json(request, body as string, done); // parseAs 'string': never a Buffer
  });

  app.get('/webhooks/secret', {
    schema: { summary: "The caller's current webhook signing secret (Standard Webhooks)", response: { 200: WebhookSecretView, ...errors } },
  }, async (request) => secrets.current(request.caller));

  app.post(ROTATE_PATH, {
    schema: {
      summary: "Rotate the caller's webhook signing secret; the previous one keeps signing for graceSeconds",
      body: RotateWebhookSecretBody,
      response: { 200: WebhookSecretRotation, ...errors },
    },
    // No body at all (no Content-Type) is the same as `{}`: validation then applies the
    // defaults. A JSON `null` is a body, and not an object: validation refuses it.
    preValidation: async (request) => {
      if (request.body === undefined) request.body = {};
    },
  }, async (request) => secrets.rotate(request.caller, request.body.graceSeconds ?? DEFAULT_GRACE_SECONDS));
};

/**
 * For app.ts's OpenAPI document: @fastify/swagger documents every request body as
 * required, but the rotate body may be left out.
 */
export const documentOptionalRotateBody: SwaggerTransformObject = (doc) => {
  if (!('openapiObject' in doc)) return doc.swaggerObject;
  const operation = Object.entries(doc.openapiObject.paths ?? {}).find(([path]) => path.endsWith(ROTATE_PATH))?.[1]?.post;
  if (operation?.requestBody && !('$ref' in operation.requestBody)) operation.requestBody.required = false;
  return doc.openapiObject;
};
