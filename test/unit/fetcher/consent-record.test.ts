// The consent record (metadata.consent): what the consent option did, decided from what it
// saw on the page (services/fetcher/src/consent/record.ts). Given what was seen, then the record.
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { consentRecord, type ConsentSeen } from '../../../services/fetcher/src/consent/record.js';
import type { TcfState } from '../../../services/fetcher/src/consent/tcf.js';
import { ConsentRecord } from '../../../shared/src/domain/page-outcome/consent.js';
import { TypeCompiler } from '@sinclair/typebox/compiler';

const nothing: ConsentSeen = { choice: 'reject', tcfRejected: false, dialogStayed: false };
const pending: TcfState = { cmpId: 6, cmpStatus: 'loaded', displayStatus: 'visible', gdprApplies: true, eventStatus: 'cmpuishown', purposeConsents: [], vendorConsents: 0 };
const refused: TcfState = { ...pending, displayStatus: 'hidden', eventStatus: 'useractioncomplete' };

describe('consent record', () => {
  test('no dialog and no TCF CMP: none found', () => {
    assert.deepEqual(consentRecord(nothing), { requested: 'reject', result: 'none-found' });
  });

  test('the reject button clicked and the dialog gone: rejected, by button, with the frame it was in', () => {
    const seen: ConsentSeen = { ...nothing, step: { platform: 'sourcepoint', did: 'answered', frameUrl: 'https://cmp.example/index.html?message_id=1' } };
    assert.deepEqual(consentRecord(seen), { requested: 'reject', result: 'rejected', platform: 'sourcepoint', via: 'button', frameUrl: 'https://cmp.example/index.html?message_id=1' });
  });

  test('accept asked and clicked: accepted', () => {
    assert.equal(consentRecord({ ...nothing, choice: 'accept', step: { platform: 'onetrust', did: 'answered' } }).result, 'accepted');
  });

  test('answered on the settings layer: via settings', () => {
    assert.deepEqual(consentRecord({ ...nothing, step: { platform: 'usercentrics', did: 'settings-answered' } }), { requested: 'reject', result: 'rejected', platform: 'usercentrics', via: 'settings' });
  });

  test('the CMP\'s postRejectAll: rejected via tcf, with the TCF state read after', () => {
    assert.deepEqual(consentRecord({ ...nothing, tcf: pending, tcfRejected: true, tcfAfter: refused }), { requested: 'reject', result: 'rejected', platform: 'tcf', via: 'tcf', tcf: refused });
  });

  test('a dialog still shown after the click: not possible, and why', () => {
    const record = consentRecord({ ...nothing, step: { platform: 'didomi', did: 'answered' }, dialogStayed: true });
    assert.equal(record.result, 'not-possible');
    assert.equal(record.platform, 'didomi');
    assert.match(record.reason ?? '', /still shown/);
  });

  test('a dialog without the choice\'s button: not possible; a settings layer that never showed its buttons says so', () => {
    assert.match(consentRecord({ ...nothing, step: { platform: 'onetrust', did: 'no-choice' } }).reason ?? '', /no reject button on its first layer or its settings layer/);
    assert.match(consentRecord({ ...nothing, choice: 'accept', step: { platform: 'onetrust', did: 'no-choice' } }).reason ?? '', /^the dialog has no accept button$/);
    assert.match(consentRecord({ ...nothing, step: { platform: 'cookiebot', did: 'opened-settings' } }).reason ?? '', /settings layer showed no reject or save button/);
  });

  test('a TCF CMP with a choice pending and no known button: not possible, platform tcf', () => {
    assert.deepEqual({ ...consentRecord({ ...nothing, tcf: pending }), reason: undefined }, { requested: 'reject', result: 'not-possible', platform: 'tcf', tcf: pending, reason: undefined });
  });

  test('a stored TCF choice and no dialog: already answered, left alone', () => {
    const stored: TcfState = { ...pending, eventStatus: 'tcloaded', displayStatus: 'hidden', purposeConsents: [1, 2] };
    assert.deepEqual(consentRecord({ ...nothing, tcf: stored }), { requested: 'reject', result: 'already-answered', platform: 'tcf', tcf: stored });
  });

  test('a stub whose CMP never loaded: none found, with what the stub said', () => {
    const stub: TcfState = { cmpStatus: 'stub', gdprApplies: true, purposeConsents: [], vendorConsents: 0 };
    assert.deepEqual(consentRecord({ ...nothing, tcf: stub }), { requested: 'reject', result: 'none-found', tcf: stub });
  });

  test('the page went away while answering: not possible, with the error, never a throw', () => {
    const record = consentRecord({ ...nothing, step: { platform: 'onetrust', did: 'opened-settings' }, failed: 'the page changed while its dialog was answered: Execution context was destroyed' });
    assert.deepEqual({ result: record.result, platform: record.platform }, { result: 'not-possible', platform: 'onetrust' });
    assert.match(record.reason ?? '', /Execution context was destroyed/);
  });

  test('a page\'s own TCF answers cannot make the event invalid: odd ids and long strings are bounded', () => {
    const hostile = {
      cmpId: 6.5, cmpStatus: 'loaded'.repeat(50), displayStatus: 42, eventStatus: 'useractioncomplete', gdprApplies: 'yes',
      purposeConsents: [1, 1, Number.NaN, -3, 2.5, 4, ...Array.from({ length: 100 }, (_, i) => i + 5)], vendorConsents: -1,
    } as unknown as TcfState;
    const record = consentRecord({ ...nothing, tcf: hostile, step: { platform: 'onetrust', did: 'answered' } });
    assert.ok(TypeCompiler.Compile(ConsentRecord).Check(record), JSON.stringify(record));
    assert.deepEqual(record.tcf?.purposeConsents.slice(0, 3), [1, 4, 5]);
    assert.equal(record.tcf?.purposeConsents.length, 32);
    assert.deepEqual([record.tcf?.cmpId, record.tcf?.cmpStatus?.length, record.tcf?.displayStatus, record.tcf?.gdprApplies, record.tcf?.vendorConsents], [undefined, 30, undefined, undefined, 0]);
  });
});
