/**
 * Turning measured cases into the stdout tables and docs/performance.md.
 */
import type { LoadResult } from './load.js';

/** What a case is reported against (targets are reported, never asserted). */
export type Target =
  | { kind: 'ratio'; min: number }
  | { kind: 'p99'; maxMs: number }
  /** p99 at most `factor` times the p99 of the case `baseline`. */
  | { kind: 'relP99'; baseline: string; factor: number }
  /** req/s at least `min` times the req/s of the case `baseline` (same run). */
  | { kind: 'relRate'; baseline: string; min: number };

export interface CaseRow {
  id: string;
  label: string;
  connections: number;
  result?: LoadResult;
  /** Set when the case could not be measured at all. */
  error?: string;
  target?: Target;
  notes: string[];
}

export interface DialectReport {
  dialect: 'sqlite' | 'postgres';
  title: string;
  status: 'ran' | 'skipped' | 'failed';
  reason?: string;
  rows: CaseRow[];
  info: string[];
  serverProblems: string[];
}

export interface Verdict {
  ratio: string;
  target: string;
  outcome: string;
  passed?: boolean;
}

function ms(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  if (value < 10) return value.toFixed(2);
  if (value < 1000) return value.toFixed(1);
  return value.toFixed(0);
}

function rate(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '—';
  if (value >= 100) return Math.round(value).toLocaleString('en-US');
  return value.toFixed(1);
}

export function countLabel(n: number): string {
  if (n >= 1_000_000 && n % 1_000_000 === 0) return `${n / 1_000_000}M`;
  if (n >= 1_000 && n % 1_000 === 0) return `${n / 1_000}k`;
  return String(n);
}

/** Whether a measured run had answers or connection problems that make its figures suspect. */
export function flagOf(result: LoadResult | undefined): string | undefined {
  if (!result) return undefined;
  const parts: string[] = [];
  if (result.non2xx > 0) {
    const codes = Object.entries(result.statuses)
      .filter(([code]) => !code.startsWith('2'))
      .map(([code, n]) => `${code}×${n}`)
      .join(', ');
    parts.push(`${result.non2xx} non-2xx (${codes})`);
  }
  if (result.errors > 0) parts.push(`${result.errors} errors (${result.timeouts} timeouts)`);
  if (result.requests === 0) parts.push('no response completed');
  return parts.length ? parts.join('; ') : undefined;
}

export function verdictOf(row: CaseRow, report: DialectReport): Verdict {
  const ceiling = report.rows.find((r) => r.id === 'ceiling')?.result?.reqPerSec;
  const result = row.result;
  const ratioValue = result && ceiling ? result.reqPerSec / ceiling : undefined;
  const ratio = ratioValue === undefined ? '—' : row.id === 'ceiling' ? '1.00' : ratioValue.toFixed(2);
  if (!row.target) return { ratio, target: '—', outcome: flagOf(result) ? 'FLAGGED' : '—' };

  let target: string;
  let passed: boolean | undefined;
  const t = row.target;
  switch (t.kind) {
    case 'ratio':
      target = `≥ ${Math.round(t.min * 100)} % of ceiling`;
      passed = ratioValue === undefined ? undefined : ratioValue >= t.min;
      break;
    case 'p99':
      target = `p99 < ${t.maxMs} ms`;
      passed = result && Number.isFinite(result.p99) ? result.p99 < t.maxMs : undefined;
      break;
    case 'relP99': {
      const base = report.rows.find((r) => r.id === t.baseline)?.result?.p99;
      target = base !== undefined && Number.isFinite(base) ? `p99 ≤ ${t.factor}× unloaded (${ms(t.factor * base)} ms)` : `p99 ≤ ${t.factor}× unloaded`;
      passed = result && base !== undefined && Number.isFinite(result.p99) && Number.isFinite(base) ? result.p99 <= t.factor * base : undefined;
      break;
    }
    case 'relRate': {
      const base = report.rows.find((r) => r.id === t.baseline)?.result?.reqPerSec;
      const share = result && base ? result.reqPerSec / base : undefined;
      target = `≥ ${Math.round(t.min * 100)} % of \`${t.baseline}\`${share === undefined ? '' : ` (${(share * 100).toFixed(1)} %)`}`;
      passed = share === undefined ? undefined : share >= t.min;
      break;
    }
  }
  if (flagOf(result)) passed = false;
  const outcome = passed === undefined ? 'n/a' : `${passed ? 'pass' : 'MISS'}${flagOf(result) ? ' (FLAGGED)' : ''}`;
  return { ratio, target, outcome, passed };
}

const HEADERS = ['case', 'conns', 'responses', 'req/s', 'p50 ms', 'p99 ms', '× ceiling', 'target', 'result'];

function cells(row: CaseRow, report: DialectReport): string[] {
  const v = verdictOf(row, report);
  const r = row.result;
  if (!r) return [row.label, String(row.connections), '—', '—', '—', '—', '—', v.target, row.error ? 'ERROR' : 'n/a'];
  return [row.label, String(row.connections), r.requests.toLocaleString('en-US'), rate(r.reqPerSec), ms(r.p50), ms(r.p99), v.ratio, v.target, v.outcome];
}

/** Notes of a row: flags first, then what the case observed (total_size, drain time…). */
export function rowNotes(row: CaseRow): string[] {
  const notes: string[] = [];
  if (row.error) notes.push(`ERROR: ${row.error}`);
  const flag = flagOf(row.result);
  if (flag) notes.push(`FLAGGED: ${flag}`);
  return [...notes, ...row.notes];
}

export function textTable(report: DialectReport): string {
  const rows = report.rows.map((r) => cells(r, report));
  const widths = HEADERS.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i].length)));
  const numeric = new Set([1, 2, 3, 4, 5, 6]);
  const line = (cols: string[]) => cols.map((c, i) => (numeric.has(i) ? c.padStart(widths[i]) : c.padEnd(widths[i]))).join('  ');
  const out = [line(HEADERS), widths.map((w) => '-'.repeat(w)).join('  '), ...rows.map(line)];
  const notes = report.rows.flatMap((r) => rowNotes(r).map((n) => `  [${r.id}] ${n}`));
  if (notes.length) out.push('', 'notes:', ...notes);
  return out.join('\n');
}

function mdEscape(text: string): string {
  return text.replace(/\|/g, '\\|');
}

export function markdownTable(report: DialectReport): string {
  const align = ['---', '--:', '--:', '--:', '--:', '--:', '--:', '---', '---'];
  const out = [`| ${HEADERS.join(' | ')} |`, `| ${align.join(' | ')} |`];
  for (const row of report.rows) out.push(`| ${cells(row, report).map(mdEscape).join(' | ')} |`);
  return out.join('\n');
}

export function markdownNotes(report: DialectReport): string {
  const lines: string[] = [];
  for (const row of report.rows) for (const note of rowNotes(row)) lines.push(`- \`${row.id}\`: ${mdEscape(note)}`);
  return lines.join('\n');
}
