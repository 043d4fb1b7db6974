// given(events) / when(command[, context]) / then(result): the specification style for
// deciders (after emmett's DeciderSpecification). State is rebuilt by folding `evolve` over
// the given events, so a test states history, not internal state. The one helper for every
// decider: `decide` may take a context (a clock, bounds) and answer with events (the usual
// case, compared with `then`) or with a decision (checked with `thenMatches`).
import assert from 'node:assert/strict';

export interface Decider<Command, Event, State, Result = Event[], Context = undefined> {
  decide(command: Command, state: State, context?: Context): Result;
  evolve(state: State, event: Event): State;
  initialState(): State;
}

export function deciderSpec<Command, Event, State, Result = Event[], Context = undefined>(decider: Decider<Command, Event, State, Result, Context>) {
  return {
    given(events: Event[]) {
      const state = events.reduce((s, e) => decider.evolve(s, e), decider.initialState());
      return {
        state,
        when(command: Command, context?: Context) {
          const run = (): Result => decider.decide(command, state, context);
          return {
            then(expected: Result) {
              assert.deepEqual(run(), expected);
            },
            thenMatches(check: (result: Result) => void) {
              check(run());
            },
            thenThrows<E extends Error>(errorClass: new (...args: never[]) => E, message?: RegExp) {
              assert.throws(run, (err: unknown) => err instanceof errorClass && (!message || message.test((err as Error).message)));
            },
            /** The result, for a test that asserts on part of it. */
            result: run,
          };
        },
      };
    },
  };
}

/**
 * given(events) for a read model (services/projector/src/read-models/): folds its `evolve`
 * over the events as the projector does, where a null answer saves nothing and the
 * document stays. `hydrated` gives an event what the projector would have loaded for it.
 */
export function readModelSpec<Doc, Event, Hydrated = undefined, State extends Doc | null = Doc | null>(
  evolve: (doc: Doc | null, event: Event, hydrated: Hydrated) => Doc | null,
  initial: State = null as State,
) {
  return {
    given(events: Event[], hydrated?: (event: Event) => Hydrated): State {
      return events.reduce<State>((doc, e) => (evolve(doc, e, hydrated?.(e) as Hydrated) ?? doc) as State, initial);
    },
  };
}
