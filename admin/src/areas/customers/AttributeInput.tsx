import { Checkbox, MultiSelect, NumberInput, Select, TextInput, Textarea } from '@mantine/core';
import { LIMITS, type Attribute } from './data';

export type AttributeValue = string | number | boolean | string[] | null | undefined;

/** What the form says about an attribute's limits (SPEC 2.13), under its label. */
export function attributeHint(a: Attribute): string {
  const parts: string[] = [];
  if (a.description) parts.push(a.description);
  if (a.type === 'TEXT' || a.type === 'TEXTAREA') {
    const max = a.max_length ?? (a.type === 'TEXT' ? LIMITS.textMax : LIMITS.textareaMax);
    parts.push(a.min_length ? `${a.min_length} to ${max} characters.` : `At most ${max} characters.`);
  }
  if (a.type === 'NUMBER' && (a.min_value !== undefined || a.max_value !== undefined)) {
    parts.push(a.min_value !== undefined && a.max_value !== undefined ? `From ${a.min_value} to ${a.max_value}.` : a.min_value !== undefined ? `At least ${a.min_value}.` : `At most ${a.max_value}.`);
  }
  if (a.is_active === false) parts.push('Inactive: kept, but no longer changeable.');
  return parts.join(' ');
}

/** One customer attribute's control, by its type. */
export function AttributeInput({ attribute: a, value, onChange, error, readOnly }: { attribute: Attribute; value: AttributeValue; onChange: (v: AttributeValue) => void; error?: string; readOnly?: boolean }) {
  const common = { label: a.display_name, description: attributeHint(a) || undefined, required: a.is_required, error, disabled: readOnly || a.is_active === false };
  const options = (a.options ?? []).map((o) => ({ value: o.value, label: o.display_name }));
  switch (a.type) {
    case 'TEXTAREA':
      return <Textarea {...common} autosize minRows={2} maxLength={a.max_length ?? LIMITS.textareaMax} value={(value as string) ?? ''} onChange={(e) => onChange(e.currentTarget.value)} />;
    case 'NUMBER':
      return <NumberInput {...common} min={a.min_value} max={a.max_value} value={typeof value === 'number' ? value : ''} onChange={(v) => onChange(typeof v === 'number' ? v : v === '' ? null : Number(v))} />;
    case 'BOOLEAN':
      return <Checkbox label={a.display_name} description={common.description} error={error} disabled={common.disabled} checked={value === true} onChange={(e) => onChange(e.currentTarget.checked)} />;
    case 'DATE':
      return <TextInput {...common} type="date" value={(value as string) ?? ''} onChange={(e) => onChange(e.currentTarget.value || null)} />;
    case 'SELECT':
      return <Select {...common} data={options} value={(value as string) ?? null} onChange={(v) => onChange(v)} clearable={!a.is_required} />;
    case 'MULTISELECT':
      return <MultiSelect {...common} data={options} value={Array.isArray(value) ? value : []} onChange={(v) => onChange(v)} />;
    default:
      return <TextInput {...common} maxLength={a.max_length ?? LIMITS.textMax} value={(value as string) ?? ''} onChange={(e) => onChange(e.currentTarget.value)} />;
  }
}
