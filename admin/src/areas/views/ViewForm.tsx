/** The fields of a view (create and edit); the API's field violations show on their fields. */
import { Button, Group, Select, Stack, Switch, TextInput } from '@mantine/core';
import { useForm } from '@mantine/form';
import { useEffect } from 'react';
import { ApiErrorAlert, applyFieldErrors, fieldErrorsOf } from '../../lib/errors';
import type { Schemas } from '../../lib/api';

export type View = Schemas['View'];
export interface ViewValues {
  display_name: string;
  locale: string;
  url_prefix: string;
  fallback_view_id: string;
  is_active: boolean;
}
export const VIEW_FIELDS = ['display_name', 'locale', 'url_prefix', 'fallback_view_id', 'is_active'] as const;

export function ViewForm({ initial, views, selfId, isDefault, submitLabel, pending, error, onSubmit, onCancel }: {
  initial: ViewValues;
  views: View[];
  selfId?: string;
  isDefault?: boolean;
  submitLabel: string;
  pending: boolean;
  error: unknown;
  onSubmit: (v: ViewValues) => void;
  onCancel: () => void;
}) {
  const form = useForm<ViewValues>({
    initialValues: initial,
    validate: {
      display_name: (v) => (v.trim() ? null : 'Enter a name.'),
      locale: (v) => (/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/.test(v.trim()) ? null : 'Enter a language tag such as de or pt-BR.'),
    },
  });
  const violations = Object.keys(fieldErrorsOf(error));
  const explained = violations.length > 0 && violations.every((f) => (VIEW_FIELDS as readonly string[]).includes(f));
  useEffect(() => {
    if (error) applyFieldErrors(form, error, VIEW_FIELDS);
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [error]);
  return (
    <form onSubmit={form.onSubmit(onSubmit)} noValidate>
      <Stack>
        {!explained && <ApiErrorAlert error={error} title="The view was not saved" />}
        <TextInput label="Name" description="Shown in the admin and the site’s language switcher." required {...form.getInputProps('display_name')} />
        <TextInput label="Language" description="BCP 47 tag, e.g. de or pt-BR." required {...form.getInputProps('locale')} />
        <TextInput label="URL prefix" description={isDefault ? 'The default view usually has none.' : 'The view answers under /{prefix}/…; left empty, the language in lower case.'} {...form.getInputProps('url_prefix')} />
        <Select
          label="Fallback view"
          description="Where this view has no text of its own, the fallback’s shows."
          clearable
          placeholder="None"
          data={views.filter((v) => v.id !== selfId).map((v) => ({ value: v.id, label: `${v.display_name} (${v.locale})` }))}
          {...form.getInputProps('fallback_view_id')}
          value={form.values.fallback_view_id || null}
          onChange={(v) => form.setFieldValue('fallback_view_id', v ?? '')}
        />
        <Switch label="Active" description="Off: the site stops serving this view." disabled={isDefault} {...form.getInputProps('is_active', { type: 'checkbox' })} />
        <Group>
          <Button type="submit" loading={pending}>
            {submitLabel}
          </Button>
          <Button variant="default" onClick={onCancel}>
            Cancel
          </Button>
        </Group>
      </Stack>
    </form>
  );
}
