// What the webhook secret endpoints do, without HTTP. A key's secret generation is read
// from the log itself (its last webhook_secret_rotated event), never from a read model, so
// a GET right after a rotation already sees it.
//
// Rotation appends with the key's rotation subject's last sequence as the expected one:
// two rotations racing from the same generation cannot both record generation n+1. The
// loser is answered 409 ROTATION_CONFLICT rather than retried into generation n+2: a
// retry would hand its caller a secret that is already the *previous* one, working until
// the grace period ends and then failing silently. Told of the conflict, the caller can
// GET the secret the winner made, or rotate again on purpose.
import { IllegalStateError } from '../../../../shared/src/domain/errors.js';
import { KEY_PART, makeEvent } from '../../../../shared/src/domain/events/index.js';
import type { Clock, IdGenerator } from '../../../../shared/src/infra/ids.js';
import { AppendConflictError, type EventLog } from '../../../../shared/src/infra/nats/event-log.js';
import { currentGeneration, nextRotation, readLastRotation, webhookSecretOf } from '../../../../shared/src/domain/webhooks.js';
import type { Caller } from '../plugins/auth.js';
import type { WebhookSecretRotation, WebhookSecretView } from '../../../../shared/src/api/index.js';

export interface WebhookSecretServiceDeps {
  log: EventLog;
  /** The server secret every key's secrets derive from (loaded lazily: see routes/webhooks.ts). */
  serverSecret: () => Promise<string>;
  newId: IdGenerator;
  clock: Clock;
}

export class WebhookSecretService {
  constructor(private readonly deps: WebhookSecretServiceDeps) {}

  async current(caller: Caller): Promise<WebhookSecretView> {
    const [serverSecret, last] = await Promise.all([this.deps.serverSecret(), readLastRotation(this.deps.log, caller.keyId)]);
    const generation = currentGeneration(last?.rotation ?? null);
    return { secret: webhookSecretOf(serverSecret, caller.keyId, generation), generation };
  }

  async rotate(caller: Caller, graceSeconds: number): Promise<WebhookSecretRotation> {
    // The server secret first: a rotation is never recorded without its secret being shown.
    const serverSecret = await this.deps.serverSecret();
    const last = await readLastRotation(this.deps.log, caller.keyId);
    const now = this.deps.clock();
    const rotation = nextRotation(last?.rotation ?? null, now, graceSeconds);
    const event = makeEvent('webhook_secret_rotated', { kind: 'apikey', id: caller.keyId, part: KEY_PART }, rotation, { eventId: this.deps.newId(), now });
    try {
      await this.deps.log.append(event, { expectedLastSubjectSequence: last?.seq ?? 0 });
    } catch (err) {
      if (!(err instanceof AppendConflictError)) throw err;
      throw new IllegalStateError(
        'the webhook secret was rotated by another request at the same time; GET /api/v1/webhooks/secret shows the current one',
        'ROTATION_CONFLICT',
      );
    }
    return {
      secret: webhookSecretOf(serverSecret, caller.keyId, rotation.generation),
      generation: rotation.generation,
      previousSecretValidUntil: rotation.previousValidUntil,
    };
  }
}
