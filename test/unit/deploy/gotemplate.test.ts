// The chart tests trust helm-lite to fail where Helm fails and to print what Helm prints;
// these pin the Go template and sprig semantics it relies on. (During development its
// output for the Trawl chart was compared with Go's own text/template plus sprig under
// four sets of values: byte for byte identical.)
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFloat, TemplateError } from './support/gotemplate.js';
import { mergeValues, renderChart, type Chart } from './support/helm-lite.js';

/** Renders one template as a chart's NOTES.txt (which, unlike manifests, is not YAML). */
function render(template: string, values: Record<string, unknown> = {}): string {
  const chart: Chart = {
    dir: '/nonexistent',
    name: 'demo',
    metadata: { name: 'demo', version: '1.0.0', appVersion: '2.0.0' },
    values,
    templates: new Map([
      ['demo/templates/_helpers.tpl', '{{- define "demo.hello" -}}hello {{ . }}{{- end }}'],
      ['demo/templates/NOTES.txt', template],
    ]),
  };
  return renderChart(chart).notes;
}

describe('helm-lite Go template semantics', () => {
  test('trim markers remove the whitespace on their side only', () => {
    assert.equal(render('a  {{- "b" -}}  c\n{{ "d" }} e'), 'abc\nd e');
  });

  test('values are floats: large numbers print in exponent form unless converted', () => {
    assert.equal(render('{{ .Values.n }} {{ .Values.n | int64 }} {{ .Values.small }}', { n: 3_600_000, small: 8081 }), '3.6e+06 3600000 8081');
    assert.equal(formatFloat(604_800_000), '6.048e+08');
    assert.equal(formatFloat(123_456), '123456');
    assert.equal(formatFloat(0.00001), '1e-05');
    assert.equal(formatFloat(2.5), '2.5');
  });

  test('a field of a missing value is an error, a missing key is blank', () => {
    assert.equal(render('[{{ .Values.nothing }}]'), '[]');
    assert.throws(() => render('{{ .Values.nothing.deeper }}'), (err: Error) => err instanceof TemplateError && /nil pointer/.test(err.message));
  });

  test('unknown functions fail at parse time', () => {
    assert.throws(() => render('{{ if false }}{{ nosuchfunc 1 }}{{ end }}'), /function "nosuchfunc" not defined/);
  });

  test('and/or short-circuit, so guards protect later arguments', () => {
    assert.equal(render('{{ if and .Values.a .Values.a.b }}yes{{ else }}no{{ end }}'), 'no');
    assert.equal(render('{{ or .Values.x "fallback" }}'), 'fallback');
  });

  test('else if chains share one end', () => {
    const t = '{{ if eq .Values.n 1.0 }}one{{ else if eq .Values.n 2.0 }}two{{ else }}many{{ end }}';
    assert.equal(render(t, { n: 1 }), 'one');
    assert.equal(render(t, { n: 2 }), 'two');
    assert.equal(render(t, { n: 3 }), 'many');
  });

  test('range over maps goes in key order; variables, $ and with', () => {
    assert.equal(render('{{ range $k, $v := .Values.m }}{{ $k }}={{ $v }};{{ end }}', { m: { b: 'x', a: 'y' } }), 'a=y;b=x;');
    assert.equal(render('{{ range .Values.l }}{{ . }}{{ $.Chart.Name }} {{ end }}', { l: ['p', 'q'] }), 'pdemo qdemo ');
    assert.equal(render('{{ with .Values.w }}{{ .x }}{{ else }}none{{ end }}', { w: { x: 'in' } }), 'in');
    assert.equal(render('{{ $a := "1" }}{{ if true }}{{ $a = "2" }}{{ end }}{{ $a }}'), '2');
  });

  test('include, dict, toYaml and nindent compose as in Helm', () => {
    assert.equal(render('{{ include "demo.hello" "you" | upper }}'), 'HELLO YOU');
    assert.equal(render('x:{{ toYaml .Values.o | nindent 2 }}', { o: { b: [1, 'two'], a: true } }), 'x:\n  a: true\n  b:\n  - 1\n  - two');
    assert.equal(render('{{ (index .Values.hosts 0).host | quote }}', { hosts: [{ host: 'h' }] }), '"h"');
    assert.equal(render('{{ default "d" .Values.e }} {{ printf "%s-%d" "a" 3 }}'), 'd a-3');
  });

  test('required and fail stop the render with their message', () => {
    assert.throws(() => render('{{ required "x is required" .Values.x }}'), /x is required/);
    assert.throws(() => render('{{ fail "stop here" }}'), /stop here/);
  });

  test('values files coalesce: maps merge, lists replace, null deletes', () => {
    assert.deepEqual(
      mergeValues({ a: { b: 1, c: [1, 2], d: 'keep' }, e: 1 }, { a: { b: 2, c: [3] }, e: null }),
      { a: { b: 2, c: [3], d: 'keep' } },
    );
  });
});
