import { InvalidArgument, OutOfRange } from '../errors.js';

export const DEFAULT_PAGE_SIZE = 50;
export const MAX_PAGE_SIZE = 100;
export const MAX_SKIP_WINDOW = 10_000;

function parseIntParam(name: string, value: string | number | undefined): number | undefined {
  if (value === undefined || value === '') return undefined;
  const n = typeof value === 'number' ? value : /^-?\d+$/.test(value) ? Number(value) : NaN;
  if (!Number.isSafeInteger(n)) throw InvalidArgument.field(name, 'must be an integer');
  return n;
}

/** `page_size` (default 50, clamped to 100) and `skip` (window of at most 10000) of a List (SPEC 4.2). */
export function parsePageWindow(query: { page_size?: string | number; skip?: string | number }): { pageSize: number; skip: number } {
  const requested = parseIntParam('page_size', query.page_size);
  if (requested !== undefined && requested < 0) throw InvalidArgument.field('page_size', 'must not be negative');
  const pageSize = !requested ? DEFAULT_PAGE_SIZE : Math.min(requested, MAX_PAGE_SIZE);
  const skip = parseIntParam('skip', query.skip) ?? 0;
  if (skip < 0) throw InvalidArgument.field('skip', 'must not be negative');
  if (skip + pageSize > MAX_SKIP_WINDOW) throw new OutOfRange('skip', `skip + page_size must be at most ${MAX_SKIP_WINDOW}`);
  return { pageSize, skip };
}
