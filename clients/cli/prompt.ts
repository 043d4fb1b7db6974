// A prompt for a secret: what is typed is not echoed (on a terminal the line discipline's
// echo is left to readline, whose output we mute), so an API key never lands on the
// screen or in a terminal's scrollback. Piped input is read as a plain line.
import { createInterface } from 'node:readline/promises';
import { Writable } from 'node:stream';

export async function askSecret(question: string, input: NodeJS.ReadStream = process.stdin, output: NodeJS.WriteStream = process.stderr): Promise<string> {
  let muted = false;
  const sink = new Writable({
    write(chunk: Buffer, _enc, done) {
      if (!muted) output.write(chunk);
      done();
    },
  });
  const rl = createInterface({ input, output: sink, terminal: input.isTTY === true });
  try {
    const answer = rl.question(question);
    muted = true;
    const value = await answer;
    if (input.isTTY) output.write('\n');
    return value;
  } finally {
    rl.close();
  }
}
