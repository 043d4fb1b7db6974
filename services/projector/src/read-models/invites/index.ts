// Console invites: made by an admin or the operator, used once to make an account, or
// revoked unused by an admin.
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import type { InviteDoc } from '../../../../../shared/src/infra/store/index.js';
import { inCollection, type ReadModel } from '../types.js';

export function evolve(doc: InviteDoc | null, event: StoredEvent): InviteDoc | null {
  switch (event.event) {
    case 'invite_created':
      if (doc) return null;
      return { id: event.id, tokenHash: event.data.tokenHash, role: event.data.role, createdAt: event.data.createdAt, expiresAt: event.data.expiresAt, createdBy: event.data.createdBy, lastSeq: event.seq };
    case 'invite_redeemed':
      if (!doc || doc.redeemedAt) return null;
      if (doc.revokedAt) return null;
      return { ...doc, redeemedAt: event.data.redeemedAt, redeemedBy: event.data.accountId, lastSeq: event.seq };
    case 'invite_revoked':
      // The decider's rule: only an open invite is revoked; the first of the two wins.
      if (!doc || doc.redeemedAt || doc.revokedAt) return null;
      return { ...doc, revokedAt: event.data.revokedAt, lastSeq: event.seq };
    default:
      return null;
  }
}

export const invitesReadModel: ReadModel<InviteDoc> = {
  name: 'invites',
  handles: ['invite_created', 'invite_redeemed', 'invite_revoked'],
  ...inCollection((store) => store.invites),
  evolve,
};
