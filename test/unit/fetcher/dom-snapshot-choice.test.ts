// Which earlier DOM stands for a page whose scripts lost its content (dom-snapshot.ts): the
// DOMContentLoaded snapshot when the settled DOM kept less than half of its text, the
// document as served when the settled DOM has none of its own or kept less than half of
// the served text. A page whose scripts add content keeps its render.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { CONTENT_MIN_CHARS, preferServed, preferSnapshot } from '../../../services/fetcher/src/engine/browser/dom-snapshot.js';

test('the served document stands when the render has no content of its own and the served one has', () => {
  assert.equal(preferServed(0, 5000), true);
  assert.equal(preferServed(CONTENT_MIN_CHARS - 1, CONTENT_MIN_CHARS), true);
});

test('the served document stands when the render kept less than half of its text (a notice put over it)', () => {
  assert.equal(preferServed(300, 2000), true);
  assert.equal(preferServed(1000, 2000), false);
});

test('the render stands when the served document has no content either (an app shell), or when scripts added content', () => {
  assert.equal(preferServed(0, CONTENT_MIN_CHARS - 1), false);
  assert.equal(preferServed(0, 0), false);
  assert.equal(preferServed(800, 300), false);
});

test('the DOMContentLoaded snapshot stands when the settled DOM lost most of its text, never when it grew', () => {
  assert.equal(preferSnapshot({ snapshotChars: 2000, settledChars: 100 }), true);
  assert.equal(preferSnapshot({ snapshotChars: 2000, settledChars: 1500 }), false);
  assert.equal(preferSnapshot({ snapshotChars: 100, settledChars: 0 }), false);
  assert.equal(preferSnapshot({ settledChars: 0 }), false);
});
