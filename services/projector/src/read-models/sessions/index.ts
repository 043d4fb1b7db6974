// Console sign-in sessions, by the hash of their token. A session ended (signed out)
// keeps its document with `endedAt`; the console refuses it.
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import type { SessionDoc } from '../../../../../shared/src/infra/store/index.js';
import { inCollection, type ReadModel } from '../types.js';

export function evolve(doc: SessionDoc | null, event: StoredEvent): SessionDoc | null {
  switch (event.event) {
    case 'session_started':
      if (doc) return null;
      return { id: event.id, accountId: event.data.accountId, startedAt: event.data.startedAt, expiresAt: event.data.expiresAt, lastSeq: event.seq };
    case 'session_ended':
      if (!doc || doc.endedAt) return null;
      return { ...doc, endedAt: event.data.endedAt, lastSeq: event.seq };
    default:
      return null;
  }
}

export const sessionsReadModel: ReadModel<SessionDoc> = {
  name: 'sessions',
  handles: ['session_started', 'session_ended'],
  ...inCollection((store) => store.sessions),
  evolve,
};
