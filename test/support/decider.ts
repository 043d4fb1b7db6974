// given(events) / when(command) / then(events): the specification style for deciders
// (after emmett's DeciderSpecification). State is rebuilt by folding `evolve` over the
// given events, so a test states history, not internal state.
import assert from 'node:assert/strict';

export interface Decider<Command, Event, State> {
  decide(command: Command, state: State): Event[];
  evolve(state: State, event: Event): State;
  initialState(): State;
}

export function deciderSpec<Command, Event, State>(decider: Decider<Command, Event, State>) {
  return {
    given(events: Event[]) {
      const state = events.reduce(decider.evolve, decider.initialState());
      return {
        when(command: Command) {
          const run = () => decider.decide(command, state);
          return {
            then(expected: Event[]) {
              assert.deepEqual(run(), expected);
            },
            thenMatches(check: (events: Event[]) => void) {
              check(run());
            },
            thenThrows<E extends Error>(errorClass: new (...args: never[]) => E, message?: RegExp) {
              assert.throws(run, (err: unknown) => err instanceof errorClass && (!message || message.test((err as Error).message)));
            },
          };
        },
      };
    },
  };
}
