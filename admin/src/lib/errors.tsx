/**
 * How failures are shown: field violations (`details[].field`) on their fields, anything else as
 * one alert with the server's message and the `REQUEST_INFO` reference to quote.
 */
import { Alert, Code, Text } from '@mantine/core';
import { ApiError } from '@siteplatform/sdk';
import { errorMessage } from './error-fields';

export { applyFieldErrors, errorMessage, fieldErrorsOf } from './error-fields';

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
