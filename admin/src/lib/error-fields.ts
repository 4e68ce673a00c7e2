/** Field violations of the canonical error body, for forms (pure: tested in test/admin-unit/). */
import { ApiError } from '@siteplatform/sdk';

/** "must be at least 8 characters" → "Must be at least 8 characters." (a form shows it under the field it names). */
export function sentence(description: string): string {
  const d = description.trim();
  return d.charAt(0).toUpperCase() + d.slice(1) + (/[.!?]$/.test(d) ? '' : '.');
}

/** `details[].field` → description, for the fields of a form (dotted paths as the API names them); the first per field. */
export function fieldErrorsOf(err: unknown): Record<string, string> {
  if (!ApiError.is(err)) return {};
  const out: Record<string, string> = {};
  for (const v of err.fieldViolations) if (v.field && !(v.field in out)) out[v.field] = sentence(v.description);
  return out;
}

/**
 * Puts the violations of `fields` on a form (`form.setErrors`, Mantine's shape) and answers whether
 * they explain the whole error; when not, show the error as a message too.
 */
export function applyFieldErrors(form: { setErrors(errors: Record<string, string>): void }, err: unknown, fields: readonly string[]): boolean {
  const all = fieldErrorsOf(err);
  const mine = Object.fromEntries(Object.entries(all).filter(([field]) => fields.includes(field)));
  form.setErrors(mine);
  return Object.keys(mine).length > 0 && Object.keys(mine).length === Object.keys(all).length;
}

/** A human sentence for any failure. */
export function errorMessage(err: unknown): string {
  if (ApiError.is(err)) return err.message.charAt(0).toUpperCase() + err.message.slice(1);
  if (err instanceof TypeError) return 'The server could not be reached. Check your connection and try again.';
  return err instanceof Error ? err.message : String(err);
}
