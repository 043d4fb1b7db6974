// transformPage: a web page's result. The extraction library (packages/extract) makes the
// markdown, html, links and metadata; this adds the page outcome (outcome/), read from the
// untouched document before clean-up removes the scripts and widgets that name their vendor.
// Declarative shadow roots are opened first (shadow-roots.ts), as a browser shows them.
import { extractPage } from '../../../packages/extract/src/index.js';
import { classifyPage, readSignals, type PageSignals } from './outcome/index.js';
import { openDeclarativeShadowRoots } from './shadow-roots.js';
import type { TransformInput, TransformOutput } from './types.js';

export function transformPage(input: TransformInput): TransformOutput {
  let signals: PageSignals | undefined;
  // Server-rendered web components: their declarative shadow roots are shown, so they are read.
  const html = openDeclarativeShadowRoots(input.html);
  const { mainTextLength, ...output }: TransformOutput & { mainTextLength?: number } = extractPage(html === input.html ? input : { ...input, html }, {
    onParsed: (document, metadata) => {
      signals = readSignals(document, { status: input.statusCode ?? 200, headers: input.headers, url: input.url, title: metadata.title }, html);
    },
  });
  // onParsed runs on every page that parses; a page that does not throws before this line.
  if (mainTextLength !== undefined) signals!.mainTextLength = mainTextLength;
  const { outcome, evidence } = classifyPage(signals!);
  output.metadata.pageOutcome = outcome;
  output.metadata.pageOutcomeEvidence = evidence;
  return output;
}
