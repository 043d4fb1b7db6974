// What the `consent` scrape option did on a page (docs/api.md "Page outcome", *Consent
// walls*): recorded on page_fetched by the fetcher (services/fetcher/src/consent) and shown
// as the result's metadata.consent, so a user can tell a page captured behind a refused
// dialog from one where no dialog was found, or where the refusal could not be given.
import { Type, type Static } from '@sinclair/typebox';
import { StringEnum } from '../string-enum.js';

export const CONSENT_CHOICES = ['reject', 'accept'] as const;
export type ConsentChoice = (typeof CONSENT_CHOICES)[number];

/**
 * `rejected` / `accepted`: the choice was given and the dialog went away. `already-answered`:
 * the CMP reported a stored choice (TCF `tcloaded`) and showed no dialog: left as it was.
 * `none-found`: no known platform's dialog and no loaded TCF CMP. `not-possible`: a dialog
 * was found but the choice could not be given (no such button on it or on its settings
 * layer, or it stayed up after the click): `reason` says which.
 */
export const CONSENT_RESULTS = ['rejected', 'accepted', 'already-answered', 'none-found', 'not-possible'] as const;
export type ConsentResult = (typeof CONSENT_RESULTS)[number];

/** TCF purposes are 1 to 11 today; the list is capped so a page's own numbers cannot grow the event. */
export const MAX_PURPOSES = 32;
/** Bounds of the TCF strings recorded (the CMP's values come from the page's scripts). */
export const TCF_STATUS_MAX = 30;

export const ConsentRecord = Type.Object({
  requested: StringEnum(CONSENT_CHOICES),
  result: StringEnum(CONSENT_RESULTS),
  /** The platform whose dialog was found (`tcf` when only the TCF API spoke). */
  platform: Type.Optional(Type.String({ maxLength: 40 })),
  /** How the choice was given: the CMP's TCF command, the dialog's button, or its settings layer. */
  via: Type.Optional(StringEnum(['tcf', 'button', 'settings'] as const)),
  /** The iframe the dialog was in, when it was in one. */
  frameUrl: Type.Optional(Type.String({ maxLength: 200 })),
  /** Why, for `not-possible`. */
  reason: Type.Optional(Type.String({ maxLength: 200 })),
  /** What the CMP said through the TCF API after the answer (or as found). */
  tcf: Type.Optional(Type.Object({
    cmpId: Type.Optional(Type.Integer({ minimum: 0 })),
    cmpStatus: Type.Optional(Type.String({ maxLength: TCF_STATUS_MAX })),
    displayStatus: Type.Optional(Type.String({ maxLength: TCF_STATUS_MAX })),
    gdprApplies: Type.Optional(Type.Boolean()),
    eventStatus: Type.Optional(Type.String({ maxLength: TCF_STATUS_MAX })),
    purposeConsents: Type.Array(Type.Integer({ minimum: 1 }), { maxItems: MAX_PURPOSES }),
    vendorConsents: Type.Integer({ minimum: 0 }),
  })),
});
export type ConsentRecord = Static<typeof ConsentRecord>;
