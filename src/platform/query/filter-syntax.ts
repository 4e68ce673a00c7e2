/**
 * The `filter` list parameter's syntax: a subset of AIP-160 parsed into an AST (filter.ts compiles it),
 * and the AST printed back in one normal form.
 *
 * Grammar (AIP-160 precedence: OR binds tighter than AND and than juxtaposition):
 *
 *   filter      = [expression]
 *   expression  = sequence { "AND" sequence }
 *   sequence    = factor { factor }                 juxtaposition is an implicit AND
 *   factor      = term { "OR" term }
 *   term        = "NOT" term | "-" term | "(" expression ")" | restriction
 *   restriction = field comparator value
 *   comparator  = "=" | "!=" | "<" | "<=" | ">" | ">=" | ":"
 *   value       = quoted string ('...' or "...", backslash escapes) | bare word | null
 *
 * Keywords are uppercase only. A bare value is a run of letters, digits and `_ . - + : @ /`, which
 * covers numbers, booleans, RFC 3339 timestamps, e-mail addresses and MIME types; anything else
 * must be quoted. The parser is a single left-to-right pass with no backtracking.
 */
import { InvalidArgument } from '../errors.js';

/** The comparators of a restriction; `:` is AIP-160's "has". */
export type FilterOperator = '=' | '!=' | '<' | '<=' | '>' | '>=' | ':';

/** A literal as written: typing happens at compile time, against the field's declared type. */
export type FilterValue = { kind: 'null' } | { kind: 'text'; text: string; quoted: boolean };

/** A parsed filter. */
export type FilterAst =
  | { kind: 'comparison'; field: string; operator: FilterOperator; value: FilterValue }
  | { kind: 'and'; operands: FilterAst[] }
  | { kind: 'or'; operands: FilterAst[] }
  | { kind: 'not'; operand: FilterAst };

/** Longest filter text accepted, in characters. */
export const MAX_FILTER_LENGTH = 2000;

/** Deepest nesting of parentheses and negations accepted. */
export const MAX_FILTER_DEPTH = 32;

const KEYWORDS = new Set(['AND', 'OR', 'NOT']);
const IDENTIFIER_START = /[A-Za-z_]/;
const IDENTIFIER_PART = /[A-Za-z0-9_]/;
const BARE_VALUE_CHAR = /[\p{L}\p{N}_.\-+:@/]/u;
const WHITESPACE = /\s/;
const ESCAPES: Record<string, string> = { n: '\n', r: '\r', t: '\t' };

function syntaxError(offset: number, what: string): InvalidArgument {
  return InvalidArgument.field('filter', `${what} at offset ${offset}`);
}

/** Recursive-descent parser working directly on characters, so `-` and `:` can mean different things by position. */
class Parser {
  private pos = 0;
  private depth = 0;

  constructor(private readonly text: string) {}

  parse(): FilterAst | undefined {
    this.skipWhitespace();
    if (this.atEnd()) return undefined;
    const ast = this.expression();
    this.skipWhitespace();
    if (!this.atEnd()) throw syntaxError(this.pos, `unexpected ${this.describeHere()}`);
    return ast;
  }

  private expression(): FilterAst {
    const operands = [this.sequence()];
    while (this.acceptKeyword('AND')) operands.push(this.sequence());
    return combine('and', operands);
  }

  private sequence(): FilterAst {
    const operands = [this.factor()];
    for (;;) {
      this.skipWhitespace();
      if (this.atEnd() || this.peek() === ')' || this.peekKeyword() === 'AND') break;
      operands.push(this.factor());
    }
    return combine('and', operands);
  }

  private factor(): FilterAst {
    const operands = [this.term()];
    while (this.acceptKeyword('OR')) operands.push(this.term());
    return combine('or', operands);
  }

  private term(): FilterAst {
    this.skipWhitespace();
    const start = this.pos;
    if (this.acceptKeyword('NOT') || this.accept('-')) {
      return { kind: 'not', operand: this.nested(start, () => this.term()) };
    }
    if (this.accept('(')) {
      const inner = this.nested(start, () => this.expression());
      this.skipWhitespace();
      if (!this.accept(')')) throw syntaxError(this.pos, `expected ")" to close the "(" at offset ${start}, got ${this.describeHere()}`);
      return inner;
    }
    return this.restriction();
  }

  private nested(start: number, parse: () => FilterAst): FilterAst {
    if (++this.depth > MAX_FILTER_DEPTH) throw syntaxError(start, `nesting deeper than ${MAX_FILTER_DEPTH} levels`);
    const ast = parse();
    this.depth--;
    return ast;
  }

  private restriction(): FilterAst {
    const start = this.pos;
    const keyword = this.peekKeyword();
    if (keyword) throw syntaxError(start, `unexpected keyword ${keyword}, expected a field name`);
    const field = this.fieldPath();
    if (!field) throw syntaxError(start, `expected a field name, got ${this.describeHere()}`);
    this.skipWhitespace();
    const operator = this.operator();
    if (!operator) {
      const hint = KEYWORDS.has(field.toUpperCase()) ? ` (keywords are uppercase: ${field.toUpperCase()})` : '';
      throw syntaxError(this.pos, `expected a comparison operator after "${field}", got ${this.describeHere()}${hint}`);
    }
    this.skipWhitespace();
    return { kind: 'comparison', field, operator, value: this.value() };
  }

  /** A dotted identifier path; the compiler decides whether it names a filterable field. */
  private fieldPath(): string | undefined {
    let path = this.identifier();
    if (!path) return undefined;
    while (this.peek() === '.') {
      this.pos++;
      const segment = this.identifier();
      if (!segment) throw syntaxError(this.pos, `expected a field name after ".", got ${this.describeHere()}`);
      path += '.' + segment;
    }
    return path;
  }

  private identifier(): string | undefined {
    if (!IDENTIFIER_START.test(this.peek())) return undefined;
    const start = this.pos;
    while (IDENTIFIER_PART.test(this.peek())) this.pos++;
    return this.text.slice(start, this.pos);
  }

  private operator(): FilterOperator | undefined {
    for (const op of ['<=', '>=', '!=', '=', '<', '>', ':'] as const) {
      if (this.text.startsWith(op, this.pos)) {
        this.pos += op.length;
        return op;
      }
    }
    return undefined;
  }

  private value(): FilterValue {
    const start = this.pos;
    const quote = this.peek();
    if (quote === '"' || quote === "'") {
      const text = this.quoted(quote);
      this.expectValueEnd();
      return { kind: 'text', text, quoted: true };
    }
    while (BARE_VALUE_CHAR.test(this.peek())) this.pos++;
    const text = this.text.slice(start, this.pos);
    if (!text) {
      const hint = this.atValueEnd() ? '' : ' (quote values that contain it)';
      throw syntaxError(start, `expected a value, got ${this.describeHere()}${hint}`);
    }
    if (KEYWORDS.has(text)) throw syntaxError(start, `expected a value, got keyword ${text} (quote it to compare with the word)`);
    this.expectValueEnd();
    return text === 'null' ? { kind: 'null' } : { kind: 'text', text, quoted: false };
  }

  /** A value must be followed by a separator, so `title = foo*` fails at the `*` instead of reading `*` as a new term. */
  private expectValueEnd(): void {
    if (!this.atValueEnd()) throw syntaxError(this.pos, `unexpected ${this.describeHere()} after a value (quote values that contain it)`);
  }

  private atValueEnd(): boolean {
    const c = this.peek();
    return c === '' || c === ')' || c === '(' || WHITESPACE.test(c);
  }

  private quoted(quote: string): string {
    const start = this.pos++;
    let out = '';
    for (;;) {
      if (this.atEnd()) throw syntaxError(start, 'unterminated string');
      const c = this.text[this.pos++];
      if (c === quote) return out;
      if (c === '\\') {
        if (this.atEnd()) throw syntaxError(start, 'unterminated string');
        const escaped = this.text[this.pos++];
        out += ESCAPES[escaped] ?? escaped;
      } else {
        out += c;
      }
    }
  }

  /** Consumes `keyword` (after optional whitespace) when it stands as a whole word. */
  private acceptKeyword(keyword: string): boolean {
    const save = this.pos;
    this.skipWhitespace();
    if (this.peekKeyword() === keyword) {
      this.pos += keyword.length;
      return true;
    }
    this.pos = save;
    return false;
  }

  private peekKeyword(): string | undefined {
    for (const keyword of KEYWORDS) {
      if (this.text.startsWith(keyword, this.pos)) {
        const next = this.text[this.pos + keyword.length] ?? '';
        if (!IDENTIFIER_PART.test(next) && next !== '.') return keyword;
      }
    }
    return undefined;
  }

  private accept(c: string): boolean {
    if (this.peek() !== c) return false;
    this.pos++;
    return true;
  }

  private skipWhitespace(): void {
    while (WHITESPACE.test(this.peek())) this.pos++;
  }

  private peek(): string {
    return this.text[this.pos] ?? '';
  }

  private atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  private describeHere(): string {
    if (this.atEnd()) return 'end of filter';
    const keyword = this.peekKeyword();
    return keyword ? `keyword ${keyword}` : JSON.stringify(this.peek());
  }
}

/** Flattens nested groups of the same kind so `a AND (b AND c)` and `a AND b AND c` compile and print alike. */
function combine(kind: 'and' | 'or', operands: FilterAst[]): FilterAst {
  if (operands.length === 1) return operands[0];
  return { kind, operands: operands.flatMap((o) => (o.kind === kind ? o.operands : [o])) };
}

/** Parses filter text; syntax errors throw InvalidArgument on `filter` saying what went wrong and at which offset. */
export function parseFilter(text: string): FilterAst | undefined {
  if (text.length > MAX_FILTER_LENGTH) {
    throw InvalidArgument.field('filter', `is longer than ${MAX_FILTER_LENGTH} characters`);
  }
  // No stored text can hold NUL (PostgreSQL refuses it), and drivers would cut strings at it.
  const nul = text.indexOf('\u0000');
  if (nul >= 0) throw syntaxError(nul, 'unexpected NUL character');
  return new Parser(text).parse();
}

/** Prints an AST in one normal form (single spaces, double quotes, explicit AND), which parses back to the same AST. */
export function formatFilter(ast: FilterAst | undefined): string {
  if (!ast) return '';
  switch (ast.kind) {
    case 'comparison':
      // AIP-160 writes "has" tight (`tags:red`) and the other comparators spaced.
      return ast.operator === ':'
        ? `${ast.field}:${formatValue(ast.value)}`
        : `${ast.field} ${ast.operator} ${formatValue(ast.value)}`;
    case 'and':
      // OR groups are parenthesised for readers, though precedence would not need it.
      return ast.operands.map((o) => (o.kind === 'or' ? `(${formatFilter(o)})` : formatFilter(o))).join(' AND ');
    case 'or':
      return ast.operands.map((o) => (o.kind === 'and' ? `(${formatFilter(o)})` : formatFilter(o))).join(' OR ');
    case 'not':
      return ast.operand.kind === 'comparison' || ast.operand.kind === 'not'
        ? `NOT ${formatFilter(ast.operand)}`
        : `NOT (${formatFilter(ast.operand)})`;
  }
}

function formatValue(value: FilterValue): string {
  if (value.kind === 'null') return 'null';
  if (!value.quoted) return value.text;
  return '"' + value.text.replace(/[\\"\n\r\t]/g, (c) => '\\' + ({ '\n': 'n', '\r': 'r', '\t': 't' }[c] ?? c)) + '"';
}
