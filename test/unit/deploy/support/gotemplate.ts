// A small interpreter for the subset of Go's text/template that Helm charts use, so the
// chart tests can render deploy/helm/trawl without a helm binary (none can be installed
// here). It follows Go's semantics where a chart bug would otherwise slip through:
// fields of a missing value are an error, unknown functions fail at parse time, `and`/`or`
// short-circuit, maps range in key order, `{{-`/`-}}` trim whitespace. Numbers follow
// Helm: values are float64 (JS number), integers made by `int`/`int64`/literals are
// bigint. Not supported: `block`, `break`/`continue`, methods, range over an integer.

export type Value = unknown;
export type Func = (...args: Value[]) => Value;
export class TemplateError extends Error {}

type Node =
  | { kind: 'text'; text: string }
  | { kind: 'action'; pipe: Pipe }
  | { kind: 'if' | 'with'; pipe: Pipe; body: Node[]; otherwise: Node[] }
  | { kind: 'range'; pipe: Pipe; body: Node[]; otherwise: Node[] }
  | { kind: 'template'; name: string; pipe: Pipe | undefined };
interface Pipe { decl: string[]; assign: boolean; cmds: Operand[][] }
type Operand =
  | { kind: 'field'; base: 'dot' | { var: string } | { sub: Pipe }; path: string[] }
  | { kind: 'lit'; value: Value }
  | { kind: 'fn'; name: string };

// ---- lexing -------------------------------------------------------------------------

/** sp: whitespace came before the token (`(x).a` is a field of x, `(x) .a` is not). */
type Tok = { t: 'id' | 'field' | 'var' | 'str' | 'num' | 'op'; v: string; sp?: boolean };

function lexAction(src: string, where: string): Tok[] {
  const toks: Tok[] = [];
  const re = /\s+|(:=|=|\||\(|\)|,)|("(?:[^"\\]|\\.)*"|`[^`]*`)|('(?:[^'\\]|\\.)')|(-?\d+(?:\.\d+)?(?:e[+-]?\d+)?)|(\$[A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)|((?:\.[A-Za-z_][A-Za-z0-9_]*)+|\.)|([A-Za-z_][A-Za-z0-9_]*)/gy;
  let m: RegExpExecArray | null;
  let sp = false;
  while (re.lastIndex < src.length) {
    const at = re.lastIndex;
    m = re.exec(src);
    if (!m || m.index !== at) throw new TemplateError(`${where}: cannot lex "${src.slice(at, at + 20)}"`);
    const before = toks.length;
    if (m[1]) toks.push({ t: 'op', v: m[1] });
    else if (m[2]) toks.push({ t: 'str', v: m[2].startsWith('`') ? m[2].slice(1, -1) : JSON.parse(m[2]) as string });
    else if (m[3]) toks.push({ t: 'num', v: String(JSON.parse(`"${m[3].slice(1, -1)}"`).codePointAt(0)) });
    else if (m[4]) toks.push({ t: 'num', v: m[4] });
    else if (m[5]) toks.push({ t: 'var', v: m[5] });
    else if (m[6]) toks.push({ t: 'field', v: m[6] });
    else if (m[7]) toks.push({ t: 'id', v: m[7] });
    if (toks.length > before) { toks[toks.length - 1]!.sp = sp; sp = false; } else sp = true;
  }
  return toks;
}

/** Splits the source into text and actions, applying the trim markers. */
function split(src: string, where: string): Array<{ text: string } | { action: string }> {
  const out: Array<{ text: string } | { action: string }> = [];
  let pos = 0;
  let trimNext = false;
  while (pos <= src.length) {
    const open = src.indexOf('{{', pos);
    let text = src.slice(pos, open < 0 ? src.length : open);
    if (trimNext) text = text.replace(/^\s+/, '');
    if (open < 0) { out.push({ text }); break; }
    let inner = src.slice(open + 2);
    const trimPrev = /^-\s/.test(inner);
    if (trimPrev) { text = text.replace(/\s+$/, ''); inner = inner.slice(1); }
    out.push({ text });
    // A comment may contain "}}"; everything else ends at the first "}}" outside quotes.
    let end: number;
    if (/^\s*\/\*/.test(inner)) end = inner.indexOf('*/') + 2 + inner.slice(inner.indexOf('*/') + 2).indexOf('}}');
    else end = findClose(inner);
    if (end < 0) throw new TemplateError(`${where}: unclosed action`);
    let body = inner.slice(0, end);
    trimNext = /\s-$/.test(body);
    if (trimNext) body = body.slice(0, -1);
    if (!/^\s*\/\*[\s\S]*\*\/\s*$/.test(body)) out.push({ action: body.trim() });
    pos = open + 2 + (trimPrev ? 1 : 0) + end + 2;
  }
  return out;
}

function findClose(s: string): number {
  let quote: string | null = null;
  for (let i = 0; i < s.length; i++) {
    const c = s[i];
    if (quote) { if (c === '\\' && quote !== '`') i++; else if (c === quote) quote = null; continue; }
    if (c === '"' || c === '`' || c === "'") quote = c;
    else if (c === '}' && s[i + 1] === '}') return i;
  }
  return -1;
}

// ---- parsing ------------------------------------------------------------------------

export class TemplateSet {
  readonly defines = new Map<string, Node[]>();
  readonly files = new Map<string, Node[]>();
  constructor(readonly funcs: Record<string, Func>) {}

  parse(name: string, src: string): void {
    const parts = split(src, name);
    let i = 0;
    // `{{else if x}}` / `{{else with x}}` make the rest of the chain one nested node that
    // shares the outer {{end}}.
    const parseControl = (keyword: 'if' | 'with' | 'range', rest: Tok[]): Node => {
      const pipe = this.pipe(rest, name, keyword === 'range');
      const body = parseList(['end', 'else']);
      let otherwise: Node[] = [];
      if (body.stop === 'else') otherwise = parseList(['end']).nodes;
      if (body.stop === 'else-chain') {
        const toks = lexAction((parts[i++] as { action: string }).action, name);
        const next = toks[0]?.v;
        if (next !== 'if' && next !== 'with') throw new TemplateError(`${name}: bad {{else ${next}}}`);
        otherwise = [parseControl(next, toks.slice(1))];
      }
      return { kind: keyword, pipe, body: body.nodes, otherwise };
    };
    const parseList = (stopAt: string[]): { nodes: Node[]; stop: string } => {
      const nodes: Node[] = [];
      while (i < parts.length) {
        const part = parts[i++]!;
        if ('text' in part) { if (part.text) nodes.push({ kind: 'text', text: part.text }); continue; }
        const toks = lexAction(part.action, name);
        const head = toks[0];
        const keyword = head?.t === 'id' ? head.v : '';
        if (['end', 'else'].includes(keyword)) {
          if (!stopAt.includes(keyword)) throw new TemplateError(`${name}: unexpected {{${part.action}}}`);
          if (keyword === 'else' && toks.length > 1) { i--; parts[i] = { action: part.action.replace(/^else\s+/, '') }; return { nodes, stop: 'else-chain' }; }
          return { nodes, stop: keyword };
        }
        if (keyword === 'if' || keyword === 'with' || keyword === 'range') {
          nodes.push(parseControl(keyword, toks.slice(1)));
          continue;
        }
        if (keyword === 'define') {
          const defName = toks[1];
          if (defName?.t !== 'str') throw new TemplateError(`${name}: define needs a name`);
          this.defines.set(defName.v, parseList(['end']).nodes);
          continue;
        }
        if (keyword === 'template') {
          const tName = toks[1];
          if (tName?.t !== 'str') throw new TemplateError(`${name}: template needs a name`);
          nodes.push({ kind: 'template', name: tName.v, pipe: toks.length > 2 ? this.pipe(toks.slice(2), name) : undefined });
          continue;
        }
        nodes.push({ kind: 'action', pipe: this.pipe(toks, name) });
      }
      if (stopAt.length) throw new TemplateError(`${name}: missing {{end}}`);
      return { nodes, stop: '' };
    };
    this.files.set(name, parseList([]).nodes);
  }

  private pipe(toks: Tok[], where: string, allowTwoVars = false): Pipe {
    const decl: string[] = [];
    let assign = false;
    const opAt = toks.findIndex((t) => t.t === 'op' && (t.v === ':=' || t.v === '='));
    if (opAt > 0 && toks.slice(0, opAt).every((t) => t.t === 'var' || (t.t === 'op' && t.v === ','))) {
      decl.push(...toks.slice(0, opAt).filter((t) => t.t === 'var').map((t) => t.v));
      assign = toks[opAt]!.v === '=';
      if (decl.length > (allowTwoVars ? 2 : 1)) throw new TemplateError(`${where}: too many variables`);
      toks = toks.slice(opAt + 1);
    }
    let pos = 0;
    const parsePipe = (untilParen: boolean): Operand[][] => {
      const cmds: Operand[][] = [[]];
      while (pos < toks.length) {
        const tok = toks[pos++]!;
        const cmd = cmds[cmds.length - 1]!;
        if (tok.t === 'op' && tok.v === '|') { cmds.push([]); continue; }
        if (tok.t === 'op' && tok.v === ')') { if (untilParen) return cmds; throw new TemplateError(`${where}: unexpected )`); }
        if (tok.t === 'op' && tok.v === '(') {
          const sub: Pipe = { decl: [], assign: false, cmds: parsePipe(true) };
          const next = toks[pos];
          const path = next?.t === 'field' && !next.sp && next.v !== '.' ? (pos++, next.v.split('.').slice(1)) : [];
          cmd.push({ kind: 'field', base: { sub }, path });
          continue;
        }
        if (tok.t === 'str') cmd.push({ kind: 'lit', value: tok.v });
        else if (tok.t === 'num') cmd.push({ kind: 'lit', value: /[.e]/.test(tok.v) ? Number(tok.v) : BigInt(tok.v) });
        else if (tok.t === 'field') cmd.push({ kind: 'field', base: 'dot', path: tok.v === '.' ? [] : tok.v.split('.').slice(1) });
        else if (tok.t === 'var') {
          const [v, ...rest] = tok.v.split('.');
          cmd.push({ kind: 'field', base: { var: v! }, path: rest });
        } else if (tok.t === 'id') {
          if (tok.v === 'true' || tok.v === 'false') cmd.push({ kind: 'lit', value: tok.v === 'true' });
          else if (tok.v === 'nil') cmd.push({ kind: 'lit', value: null });
          else if (tok.v in this.funcs || tok.v === 'and' || tok.v === 'or') cmd.push({ kind: 'fn', name: tok.v });
          else throw new TemplateError(`${where}: function "${tok.v}" not defined`);
        } else throw new TemplateError(`${where}: unexpected "${tok.v}"`);
      }
      if (untilParen) throw new TemplateError(`${where}: missing )`);
      return cmds;
    };
    const cmds = parsePipe(false);
    if (cmds.some((c) => c.length === 0)) throw new TemplateError(`${where}: empty command`);
    return { decl, assign, cmds };
  }

  // ---- execution ----------------------------------------------------------------------

  execute(name: string, data: Value): string {
    const nodes = this.files.get(name) ?? this.defines.get(name);
    if (!nodes) throw new TemplateError(`no template "${name}"`);
    const out: string[] = [];
    this.run(nodes, data, [new Map([['$', data]])], out, name);
    return out.join('');
  }

  private run(nodes: Node[], dot: Value, scopes: Array<Map<string, Value>>, out: string[], where: string): void {
    for (const node of nodes) {
      switch (node.kind) {
        case 'text': out.push(node.text); break;
        case 'action': {
          const value = this.evalPipe(node.pipe, dot, scopes, where);
          if (node.pipe.decl.length === 0) out.push(printValue(value));
          break;
        }
        case 'template': {
          const data = node.pipe ? this.evalPipe(node.pipe, dot, scopes, where) : null;
          out.push(this.execute(node.name, data));
          break;
        }
        case 'if': case 'with': {
          const inner = [...scopes, new Map()];
          const value = this.evalPipe(node.pipe, dot, inner, where);
          if (truth(value)) this.run(node.body, node.kind === 'with' ? value : dot, inner, out, where);
          else this.run(node.otherwise, dot, inner, out, where);
          break;
        }
        case 'range': {
          const inner = [...scopes, new Map()];
          const value = this.evalPipe({ ...node.pipe, decl: [] }, dot, inner, where);
          const entries: Array<[Value, Value]> = Array.isArray(value) ? value.map((v, k) => [BigInt(k), v])
            : isMap(value) ? Object.keys(value).sort().map((k) => [k, value[k]])
            : value == null ? [] : fail(`${where}: range can't iterate over ${printValue(value)}`);
          if (entries.length === 0) { this.run(node.otherwise, dot, inner, out, where); break; }
          for (const [k, v] of entries) {
            const scope = new Map<string, Value>();
            if (node.pipe.decl.length === 1) scope.set(node.pipe.decl[0]!, v);
            if (node.pipe.decl.length === 2) { scope.set(node.pipe.decl[0]!, k); scope.set(node.pipe.decl[1]!, v); }
            this.run(node.body, v, [...inner, scope], out, where);
          }
          break;
        }
      }
    }
  }

  private evalPipe(pipe: Pipe, dot: Value, scopes: Array<Map<string, Value>>, where: string): Value {
    let value: Value = undefined;
    pipe.cmds.forEach((cmd, n) => { value = this.evalCmd(cmd, dot, scopes, where, n === 0 ? [] : [value]); });
    const [name] = pipe.decl;
    if (name !== undefined) {
      if (pipe.assign) {
        const scope = [...scopes].reverse().find((s) => s.has(name));
        if (!scope) throw new TemplateError(`${where}: undefined variable ${name}`);
        scope.set(name, value);
      } else scopes[scopes.length - 1]!.set(name, value);
    }
    return value;
  }

  private evalCmd(cmd: Operand[], dot: Value, scopes: Array<Map<string, Value>>, where: string, piped: Value[]): Value {
    const [head, ...rest] = cmd;
    const arg = (op: Operand): Value => this.evalOperand(op, dot, scopes, where);
    if (head!.kind === 'fn') {
      const name = head!.name;
      if (name === 'and' || name === 'or') {
        const thunks = [...rest.map((op) => () => arg(op)), ...piped.map((v) => () => v)];
        let last: Value = undefined;
        for (const thunk of thunks) {
          last = thunk();
          if (name === 'and' ? !truth(last) : truth(last)) return last;
        }
        return last;
      }
      try {
        return this.funcs[name]!(...rest.map(arg), ...piped);
      } catch (err) {
        if (err instanceof TemplateError) throw err;
        throw new TemplateError(`${where}: error calling ${name}: ${(err as Error).message}`);
      }
    }
    if (rest.length > 0 || piped.length > 0) throw new TemplateError(`${where}: can't give arguments to a non-function`);
    return arg(head!);
  }

  private evalOperand(op: Operand, dot: Value, scopes: Array<Map<string, Value>>, where: string): Value {
    if (op.kind === 'lit') return op.value;
    if (op.kind === 'fn') return this.evalCmd([op], dot, scopes, where, []);
    let value: Value;
    if (op.base === 'dot') value = dot;
    else if ('var' in op.base) {
      const name = op.base.var;
      const scope = [...scopes].reverse().find((s) => s.has(name));
      if (!scope) throw new TemplateError(`${where}: undefined variable "${name}"`);
      value = scope.get(name);
    } else value = this.evalPipe(op.base.sub, dot, scopes, where);
    for (const key of op.path) {
      if (value == null) throw new TemplateError(`${where}: nil pointer evaluating interface {}.${key}`);
      if (!isMap(value)) throw new TemplateError(`${where}: can't evaluate field ${key} in type ${typeof value}`);
      value = Object.hasOwn(value, key) ? value[key] : undefined;
    }
    return value;
  }
}

function fail(message: string): never { throw new TemplateError(message); }

export function isMap(v: Value): v is Record<string, Value> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** Go template truthiness: zero values and empty collections are false. */
export function truth(v: Value): boolean {
  if (v == null || v === false || v === '' || v === 0 || v === 0n) return false;
  if (Array.isArray(v)) return v.length > 0;
  if (isMap(v)) return Object.keys(v).length > 0;
  return true;
}

/** fmt's %v for a float64: shortest digits, exponent form when the exponent is < -4 or >= 6. */
export function formatFloat(n: number): string {
  if (!Number.isFinite(n)) return n > 0 ? '+Inf' : n < 0 ? '-Inf' : 'NaN';
  if (n === 0) return '0';
  const [mantissa, expText] = n.toExponential().split('e') as [string, string];
  const exp = Number(expText);
  if (exp < -4 || exp >= 6) return `${mantissa}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  return String(n);
}

export function printValue(v: Value): string {
  if (v === undefined || v === null) return '<no value>';
  if (typeof v === 'number') return formatFloat(v);
  if (typeof v === 'bigint' || typeof v === 'boolean' || typeof v === 'string') return String(v);
  if (Array.isArray(v)) return `[${v.map(printValue).join(' ')}]`;
  if (isMap(v)) return `map[${Object.keys(v).sort().map((k) => `${k}:${printValue(v[k])}`).join(' ')}]`;
  return String(v);
}
