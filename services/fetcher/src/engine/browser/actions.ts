// The `actions` of a scrape request, run in order after the page has loaded (and after
// waitFor) and before the final capture. Every error names the action by its index in the
// request's `actions` array (0-based, as in `actions[2]`) and its type:
//   "action 2 (click): selector '#x' not found within 4000 ms".
// A selector that never matches a visible element within the page timeout gives
// SELECTOR_NOT_FOUND; running out of the page timeout otherwise gives PAGE_TIMEOUT.
import type { Locator, Page } from 'playwright-core';
import { PageTimeoutError, SelectorNotFoundError, ValidationError } from '../../../../../shared/src/domain/errors.js';
import type { Action } from '../../../../../shared/src/domain/scrape-options.js';
import { captureError, isClosed, isTimeout, selectorError, type Deadline } from './failures.js';

export interface ActionEnv {
  page: Page;
  deadline: Deadline;
  /** Takes an intermediate screenshot (role 'action'). */
  screenshot: () => Promise<void>;
}

export async function runActions(actions: Action[], env: ActionEnv): Promise<void> {
  for (const [index, action] of actions.entries()) {
    await runAction(action, index, env);
  }
}

async function runAction(action: Action, index: number, env: ActionEnv): Promise<void> {
  const { page, deadline } = env;
  const label = `action ${index} (${action.type})`;
  switch (action.type) {
    case 'wait': {
      if (action.milliseconds >= deadline.remainingMs()) {
        throw new PageTimeoutError(`${label}: waiting ${action.milliseconds} ms does not fit in the page timeout of ${deadline.timeoutMs} ms`);
      }
      await page.waitForTimeout(action.milliseconds);
      return;
    }
    case 'click': {
      const element = await visibleElement(page, action.selector, label, deadline);
      await act(label, () => element.click({ timeout: deadline.remainingMs() }));
      // A click may start a navigation: let the new document parse before the next step.
      await act(label, () => page.waitForLoadState('domcontentloaded', { timeout: deadline.remainingMs() }));
      return;
    }
    case 'type': {
      const element = await visibleElement(page, action.selector, label, deadline);
      try {
        await element.fill(action.text, { timeout: deadline.remainingMs() });
      } catch (err) {
        if (isTimeout(err) || isClosed(err)) throw captureError(err, label);
        throw new SelectorNotFoundError(`${label}: '${action.selector}' is not an input, textarea or editable element`, { cause: err });
      }
      return;
    }
    case 'press': {
      try {
        await page.keyboard.press(action.key);
      } catch (err) {
        if (/Unknown key/i.test(String((err as Error).message))) {
          // VALIDATION_ERROR: the request is wrong, not the page (the gateway can refuse it early).
          throw new ValidationError(`${label}: unknown key "${action.key}"`, `actions[${index}].key`);
        }
        throw captureError(err, label);
      }
      await act(label, () => page.waitForLoadState('domcontentloaded', { timeout: deadline.remainingMs() }));
      return;
    }
    case 'scroll': {
      const sign = action.direction === 'up' ? -1 : 1;
      await act(label, () =>
        page.evaluate(
          ([s, amount]) => window.scrollBy({ top: s * (amount ?? window.innerHeight), behavior: 'instant' }),
          [sign, action.amount ?? null] as const,
        ),
      );
      return;
    }
    case 'screenshot':
      await env.screenshot();
      return;
  }
}

async function visibleElement(page: Page, selector: string, label: string, deadline: Deadline): Promise<Locator> {
  const element = page.locator(`css=${selector}`).first();
  const waitMs = deadline.remainingMs();
  try {
    await element.waitFor({ state: 'visible', timeout: waitMs });
  } catch (err) {
    throw selectorError(err, label, selector, waitMs);
  }
  return element;
}

async function act<T>(label: string, step: () => Promise<T>): Promise<T> {
  try {
    return await step();
  } catch (err) {
    throw captureError(err, label);
  }
}
