// transformPage: a web page's result. The extraction library (packages/extract) makes the
// markdown, html, links and metadata; this adds the page outcome (outcome/), read from the
// untouched document before clean-up removes the scripts and widgets that name their vendor.
import { extractPage } from '../../../packages/extract/src/index.js';
import { classifyPage, readSignals, type PageSignals } from './outcome/index.js';
import type { TransformInput, TransformOutput } from './types.js';

export function transformPage(input: TransformInput): TransformOutput {
  let signals: PageSignals | undefined;
  const { mainTextLength, ...output }: TransformOutput & { mainTextLength?: number } = extractPage(input, {
    onParsed: (document, metadata) => {
      signals = readSignals(document, { status: input.statusCode ?? 200, headers: input.headers, url: input.url, title: metadata.title }, input.html);
    },
  });
  // onParsed runs on every page that parses; a page that does not throws before this line.
  if (mainTextLength !== undefined) signals!.mainTextLength = mainTextLength;
  const { outcome, evidence } = classifyPage(signals!);
  output.metadata.pageOutcome = outcome;
  output.metadata.pageOutcomeEvidence = evidence;
  return output;
}
