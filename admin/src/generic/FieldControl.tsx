/** One control of a generated form, chosen by the field's kind (lib/openapi-model/form.ts). */
import { Checkbox, Fieldset, FileInput, JsonInput, MultiSelect, NumberInput, PasswordInput, Select, Stack, TagsInput, TextInput, Textarea } from '@mantine/core';
import type { FormField, FormValue, FormValues } from '../lib/openapi-model/form.js';
import { ReferenceSelect } from './ReferenceSelect';
import { fromLocalInput, toLocalInput } from './format';

export interface FieldControlProps {
  field: FormField;
  value: FormValue;
  onChange: (value: FormValue) => void;
  onBlur?: () => void;
  /** Errors by dotted path (a fieldset shows its children's). */
  errors: Record<string, string | undefined>;
  /** Path params and context ids, for reference pickers of nested collections. */
  params: Record<string, string>;
  disabled?: boolean;
}

/** The first sentence of a description, as the control's help text. */
const help = (description: string) => {
  const first = description.split(/(?<=\.)\s/)[0] ?? '';
  return first.length > 220 ? `${first.slice(0, 217)}…` : first;
};

// Mantine's default description grey is below 4.5:1 on white (WCAG 1.4.3); a darker grey passes.
// The same for error text and the text of an input in error (Mantine's red.6 is about 3.3:1).
const readable = {
  description: { color: 'var(--mantine-color-gray-7)' },
  error: { color: 'var(--mantine-color-red-9)' },
  input: { color: 'var(--mantine-color-text)' },
};

export function FieldControl({ field, value, onChange, onBlur, errors, params, disabled }: FieldControlProps) {
  const common = {
    label: field.label,
    description: help(field.description),
    error: errors[field.path],
    required: field.required,
    readOnly: field.readOnly,
    disabled,
    onBlur,
    'data-field': field.path,
    styles: readable,
  };
  switch (field.kind) {
    case 'textarea':
      return <Textarea {...common} autosize minRows={3} maxRows={14} value={(value as string) ?? ''} maxLength={field.maxLength} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'password':
      return <PasswordInput {...common} autoComplete="new-password" value={(value as string) ?? ''} maxLength={field.maxLength} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'datetime':
      return (
        <TextInput
          {...common}
          type="datetime-local"
          step={1}
          value={toLocalInput((value as string) ?? '')}
          onChange={(e) => onChange(fromLocalInput(e.currentTarget.value))}
        />
      );
    case 'integer':
    case 'number':
      return (
        <NumberInput
          {...common}
          value={value as number | string}
          min={field.minimum}
          max={field.maximum}
          allowDecimal={field.kind === 'number'}
          onChange={(v) => onChange(v === '' ? '' : Number(v))}
        />
      );
    case 'boolean':
      return (
        <Checkbox
          label={field.label}
          description={common.description}
          error={common.error}
          disabled={disabled || field.readOnly}
          checked={value === true}
          styles={readable}
          onChange={(e) => onChange(e.currentTarget.checked)}
          onBlur={onBlur}
          data-field={field.path}
        />
      );
    case 'select':
      return (
        <Select
          {...common}
          data={field.options ?? []}
          value={(value as string | null) ?? null}
          onChange={(v) => onChange(v)}
          clearable={!field.required}
          searchable={(field.options?.length ?? 0) > 8}
          allowDeselect={!field.required}
        />
      );
    case 'multiselect':
      return <MultiSelect {...common} data={field.options ?? []} value={(value as string[]) ?? []} onChange={(v) => onChange(v)} clearable searchable />;
    case 'tags':
      return <TagsInput {...common} value={(value as string[]) ?? []} onChange={(v) => onChange(v)} maxTags={field.maxItems} clearable />;
    case 'reference':
    case 'references':
      return <ReferenceSelect {...common} field={field} value={value} onChange={onChange} params={params} />;
    case 'file':
      return <FileInput {...common} value={(value as File | null) ?? null} onChange={(f) => onChange(f)} clearable />;
    case 'fieldset': {
      const obj = (value as FormValues) ?? {};
      return (
        <Fieldset legend={field.label} disabled={disabled || field.readOnly} data-field={field.path}>
          <Stack gap="sm">
            {(field.fields ?? []).map((child) => (
              <FieldControl
                key={child.path}
                field={child}
                value={obj[child.name] ?? null}
                onChange={(v) => onChange({ ...obj, [child.name]: v })}
                onBlur={onBlur}
                errors={errors}
                params={params}
                disabled={disabled}
              />
            ))}
          </Stack>
        </Fieldset>
      );
    }
    case 'json':
      return (
        <JsonInput
          {...common}
          description={`${common.description} (JSON)`.trim()}
          value={(value as string) ?? ''}
          onChange={(v) => onChange(v)}
          autosize
          minRows={3}
          maxRows={16}
          formatOnBlur
          validationError="Not valid JSON."
        />
      );
    default:
      return (
        <TextInput
          {...common}
          type={field.kind === 'email' ? 'email' : field.kind === 'url' ? 'url' : 'text'}
          value={(value as string) ?? ''}
          maxLength={field.maxLength}
          onChange={(e) => onChange(e.currentTarget.value)}
        />
      );
  }
}
