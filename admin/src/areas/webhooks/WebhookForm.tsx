/** The fields of a webhook (create and edit): https URL, event types from the catalogue, description, enabled. */
import { Button, Group, MultiSelect, Stack, Switch, TextInput, Textarea } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect } from 'react';
import { ApiErrorAlert, applyFieldErrors, fieldErrorsOf } from '../../lib/errors';
import { eventTypeOptions, useEventTypes } from './data';

export interface WebhookValues {
  url: string;
  event_types: string[];
  description: string;
  enabled: boolean;
}
export const WEBHOOK_FIELDS = ['url', 'event_types', 'description', 'enabled'] as const;

export function WebhookForm({
  initial,
  submitLabel,
  pending,
  error,
  errorTitle,
  disabled,
  onSubmit,
  onCancel,
}: {
  initial: WebhookValues;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  errorTitle: string;
  disabled?: boolean;
  onSubmit: (values: WebhookValues) => void;
  onCancel?: () => void;
}) {
  const types = useEventTypes();
  const form = useForm<WebhookValues>({
    initialValues: initial,
    validate: {
      url: (v) => (/^https?:\/\/\S+$/i.test(v.trim()) ? null : 'Enter an absolute https:// URL.'),
      event_types: (v) => (v.length ? null : 'Pick at least one event type.'),
    },
  });
  // The API's field violations (a refused private address, an unknown type) go on the fields; the rest above the form.
  const violations = Object.keys(fieldErrorsOf(error));
  const explained = violations.length > 0 && violations.every((f) => (WEBHOOK_FIELDS as readonly string[]).includes(f));
  useEffect(() => {
    if (error) applyFieldErrors(form, error, WEBHOOK_FIELDS);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [error]);
  return (
    <form onSubmit={form.onSubmit((v) => onSubmit({ ...v, url: v.url.trim() }))} noValidate>
      <Stack>
        {!explained && <ApiErrorAlert error={error} title={errorTitle} />}
        <TextInput label="Endpoint URL" description="Where deliveries are POSTed: an https:// address reachable from the internet." required type="url" disabled={disabled} {...form.getInputProps('url')} />
        <MultiSelect
          label="Event types"
          description="A type, every type of one resource (name.*), or * for everything."
          required
          searchable
          data={eventTypeOptions(types.data)}
          nothingFoundMessage={types.isPending ? 'Loading the event types…' : 'No such event type'}
          disabled={disabled}
          {...form.getInputProps('event_types')}
        />
        <ApiErrorAlert error={types.error} title="The event types could not be loaded" />
        <Textarea label="Description" autosize minRows={2} disabled={disabled} {...form.getInputProps('description')} />
        <Switch label="Enabled" description="Off pauses deliveries; events written meanwhile are not delivered later." disabled={disabled} {...form.getInputProps('enabled', { type: 'checkbox' })} />
        {!disabled && (
          <Group>
            <Button type="submit" loading={pending}>
              {submitLabel}
            </Button>
            {onCancel && (
              <Button variant="default" onClick={onCancel}>
                Cancel
              </Button>
            )}
          </Group>
        )}
      </Stack>
    </form>
  );
}
