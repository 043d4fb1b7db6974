// patches/linkedom+*.patch (see packages/extract/src/dom.ts): nodes no longer get an
// event-listener map at construction, and events work as before.
import assert from 'node:assert/strict';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { describe, test } from 'node:test';
import fc from 'fast-check';
import { classOf, parseDocument } from '../../../packages/extract/src/dom.js';

describe('linkedom, as patched', () => {
  test('the patch is applied: the EventTarget constructor no longer fills the listener WeakMap', () => {
    const entry = createRequire(import.meta.url).resolve('linkedom');
    const root = entry.slice(0, entry.lastIndexOf(`${path.sep}linkedom${path.sep}`) + '/linkedom/'.length);
    for (const build of ['esm', 'cjs']) {
      const source = fs.readFileSync(path.join(root, build, 'interface/event-target.js'), 'utf8');
      const ctor = /constructor\(\) \{([^}]*)\}/.exec(source)?.[1] ?? '';
      assert.doesNotMatch(ctor, /wm\.set/, `${build}: run npm install (postinstall: patch-package)`);
    }
  });

  test('given a parsed page, listeners added, dispatched, bubbled and removed work as before', () => {
    const document = parseDocument('<html><body><div id="outer"><p id="inner">x</p></div></body></html>');
    const outer = document.getElementById('outer')!;
    const inner = document.getElementById('inner')!;
    const seen: string[] = [];
    const onInner = (): void => { seen.push('inner'); };
    inner.addEventListener('ping', onInner);
    outer.addEventListener('ping', () => { seen.push('outer'); });
    inner.dispatchEvent(new document.defaultView!.Event('ping', { bubbles: true }));
    assert.deepEqual(seen, ['inner', 'outer']);
    inner.removeEventListener('ping', onInner);
    document.getElementById('outer')!.removeEventListener('never-added', onInner); // no map yet: no throw
    inner.dispatchEvent(new document.defaultView!.Event('ping', { bubbles: true }));
    assert.deepEqual(seen, ['inner', 'outer', 'outer']);
    // A node nobody listens on dispatches without error.
    assert.equal(document.body.dispatchEvent(new document.defaultView!.Event('ping')), true);
  });
});

describe('classOf: the class attribute read from its node', () => {
  const classTokens = fc.array(fc.constantFrom('a', 'b', 'post-meta', 'A', 'é', '', ' ', '  ', '\t', '\n'), { maxLength: 8 }).map((parts) => parts.join(' '));

  test('given any class attribute and class changes, classOf agrees with getAttribute("class") on the element and its clone', () => {
    fc.assert(fc.property(fc.option(classTokens), classTokens, fc.constantFrom('none', 'className', 'setAttribute', 'add', 'remove', 'toggle', 'removeAttribute'), (initial, value, change) => {
      const attribute = initial === null ? '' : ` class="${initial}"`;
      const document = parseDocument(`<html><body><div id="x"${attribute}><p>text</p></div></body></html>`);
      const el = document.getElementById('x')!;
      if (change === 'className') el.className = value;
      else if (change === 'setAttribute') el.setAttribute('class', value);
      else if (change === 'add') el.classList.add(...value.split(/\s+/).filter(Boolean));
      else if (change === 'remove') el.classList.remove(...value.split(/\s+/).filter(Boolean));
      else if (change === 'toggle') el.classList.toggle(value.trim().split(/\s+/)[0] || 'a');
      else if (change === 'removeAttribute') el.removeAttribute('class');
      const clone = el.cloneNode(true) as Element;
      return classOf(el) === el.getAttribute('class') && classOf(clone) === clone.getAttribute('class') && classOf(el.firstElementChild!) === el.firstElementChild!.getAttribute('class');
    }), { numRuns: 1000 });
  });
});
