/**
 * How failures are shown: field violations (`details[].field`) on their fields, anything else as
 * one alert with the server's message and the `REQUEST_INFO` reference to quote.
 */
import { Alert, Code, Text } from '@mantine/core';
import { ApiError } from '@siteplatform/sdk';

/** `details[].field` → description, for the fields of a form (dotted paths as the API names them). */
export function fieldErrorsOf(err: unknown): Record<string, string> {
  if (!ApiError.is(err)) return {};
  const out: Record<string, string> = {};
  for (const v of err.fieldViolations) if (v.field && !(v.field in out)) out[v.field] = sentence(v.field, v.description);
  return out;
}

/** "must be at least 8 characters" → "Must be at least 8 characters." (the API names the field first; a form shows it under the field). */
function sentence(_field: string, description: string): string {
  const d = description.trim();
  return d.charAt(0).toUpperCase() + d.slice(1) + (/[.!?]$/.test(d) ? '' : '.');
}

/**
 * Puts the violations of `fields` on a Mantine form (`form.setErrors`) and answers whether the
 * error is fully explained by them; when not, show `<ApiErrorAlert>` as well.
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

/** The message of a failure, with the reference of the server's log entry. Renders nothing without an error. */
export function ApiErrorAlert({ error, title }: { error: unknown; title?: string }) {
  if (!error) return null;
  const requestId = ApiError.is(error) ? error.requestId : undefined;
  return (
    <Alert color="red" title={title ?? 'Something went wrong'} role="alert">
      <Text size="sm">{errorMessage(error)}</Text>
      {requestId && (
        <Text size="xs" mt={4}>
          Reference: <Code>{requestId}</Code>
        </Text>
      )}
    </Alert>
  );
}
