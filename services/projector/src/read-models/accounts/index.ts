// Console accounts: who may sign in, with which role and plan. The same rules as the
// account decider (shared/src/domain/accounts/account-decider.ts): a registration makes the
// document once; plan changes, disabling and enabling change it.
import type { StoredEvent } from '../../../../../shared/src/domain/events/index.js';
import type { AccountDoc } from '../../../../../shared/src/infra/store/index.js';
import { inCollection, type ReadModel } from '../types.js';

export function evolve(doc: AccountDoc | null, event: StoredEvent): AccountDoc | null {
  switch (event.event) {
    case 'account_registered':
      if (doc) return null;
      return {
        id: event.id, email: event.data.email, passwordHash: event.data.passwordHash, role: event.data.role, plan: event.data.plan,
        status: 'ACTIVE', createdAt: event.data.registeredAt, ...(event.data.inviteId ? { inviteId: event.data.inviteId } : {}), lastSeq: event.seq,
      };
    case 'account_plan_changed':
      return doc ? { ...doc, plan: event.data.plan, lastSeq: event.seq } : null;
    case 'account_disabled':
      return doc ? { ...doc, status: 'DISABLED', lastSeq: event.seq } : null;
    case 'account_enabled':
      return doc ? { ...doc, status: 'ACTIVE', lastSeq: event.seq } : null;
    default:
      return null;
  }
}

export const accountsReadModel: ReadModel<AccountDoc> = {
  name: 'accounts',
  handles: ['account_registered', 'account_plan_changed', 'account_disabled', 'account_enabled'],
  ...inCollection((store) => store.accounts),
  evolve,
};
