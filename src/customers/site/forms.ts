import type { FastifyRequest } from 'fastify';
import type { Database } from '../../platform/db/database.js';
import type { ApiError, FieldViolation } from '../../platform/errors.js';
import type { SiteView } from '../../platform/area.js';
import type { AttributeType } from '../attribute-values.js';
import { formAttributeRows } from '../customers.repo.js';

/**
 * The form kit of the customers' site pages: what a posted form holds, the fields a page shows
 * (the customer attributes among them), and a refused write's errors placed on those fields.
 */

/** A posted form: each field's value, or values when it repeats. */
export type Form = Record<string, string | string[]>;

/** An attribute the site's forms ask for (active and `show_in_registration`). */
export interface FormAttribute {
  key: string;
  label: string;
  hint: string;
  type: AttributeType;
  required: boolean;
  options: Array<{ value: string; label: string }>;
}

/** A field as the `account/field` template renders it. */
export interface FieldView {
  name: string;
  id: string;
  label: string;
  kind: string;
  value: string;
  required: boolean;
  hint?: string;
  error?: string;
  autocomplete?: string;
  step?: string;
  describedby: string;
  options?: Array<{ value: string; label: string; checked: boolean }>;
}

/** A form page as `account/form` renders it. */
export interface FormPage {
  heading: string;
  title: string;
  action: string;
  submit: string;
  fields: FieldView[];
  intro?: string;
  notice?: string;
  details?: Array<{ label: string; value: string }>;
  hidden?: Array<{ name: string; value: string }>;
  links?: Array<{ href: string; label: string }>;
  /** Errors not tied to a field (shown in the summary only). */
  formErrors?: string[];
}

/** Active attributes shown in registration (and the profile), in their order, labelled in the view's language. */
export async function formAttributes(database: Database, websiteId: string, view: SiteView): Promise<FormAttribute[]> {
  const rows = await formAttributeRows(database.db, websiteId);
  const truthy = (v: unknown) => v === true || v === 1;
  const language = view.locale.toLowerCase().split('-')[0];
  const labelIn = (labels: unknown, fallback: string) => {
    const map = database.dialect.readJson<Record<string, string> | null>(labels) ?? {};
    const entry = Object.entries(map).find(([locale]) => locale.toLowerCase() === view.locale.toLowerCase()) ?? Object.entries(map).find(([locale]) => locale.toLowerCase().split('-')[0] === language);
    return entry?.[1] || fallback;
  };
  return rows
    .filter((r) => truthy(r.is_active) && truthy(r.show_in_registration))
    .map((r) => ({
      key: r.key,
      label: labelIn(r.labels, r.display_name),
      hint: r.description ?? '',
      type: r.type as AttributeType,
      required: truthy(r.is_required),
      options: (database.dialect.readJson<Array<{ value: string; display_name: string; labels?: Record<string, string> }> | null>(r.options) ?? []).map((o) => ({
        value: o.value,
        label: labelIn(o.labels ?? null, o.display_name),
      })),
    }));
}

/** A form's value of one attribute, typed as the customers API takes it (absent: undefined). */
export function attributeInput(attribute: FormAttribute, form: Form): unknown {
  const raw = form[`attributes.${attribute.key}`];
  const first = Array.isArray(raw) ? raw[0] : raw;
  switch (attribute.type) {
    case 'MULTISELECT':
      return raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
    case 'BOOLEAN':
      return first === 'true' ? true : first === 'false' ? false : undefined;
    case 'NUMBER': {
      if (first === undefined || first.trim() === '') return undefined;
      const number = Number(first);
      // Not a number: passed on as text, so the API's check names the field ("must be a number").
      return Number.isFinite(number) ? number : first;
    }
    default:
      return first === undefined || first === '' ? undefined : first;
  }
}

/** The form fields of the attributes, with the entered (or stored) values and their errors. */
export function attributeFields(attributes: FormAttribute[], values: Record<string, unknown>, errors: Map<string, string>): FieldView[] {
  return attributes.map((a) => {
    const value = values[a.key];
    const name = `attributes.${a.key}`;
    const base = { name, id: `field-attributes-${a.key}`, label: a.label, required: a.required, hint: a.hint || undefined, error: errors.get(name) };
    switch (a.type) {
      case 'BOOLEAN':
        return field({ ...base, kind: 'radios', value: '', options: [{ value: 'true', label: 'Yes', checked: value === true }, { value: 'false', label: 'No', checked: value === false }] });
      case 'MULTISELECT': {
        const chosen = Array.isArray(value) ? value.map(String) : [];
        return field({ ...base, kind: 'checkboxes', value: '', options: a.options.map((o) => ({ ...o, checked: chosen.includes(o.value) })) });
      }
      case 'SELECT':
        return field({ ...base, kind: 'select', value: '', options: a.options.map((o) => ({ ...o, checked: value === o.value })) });
      case 'NUMBER':
        return field({ ...base, kind: 'number', step: 'any', value: value === undefined || value === null ? '' : String(value) });
      case 'DATE':
        return field({ ...base, kind: 'date', value: typeof value === 'string' ? value : '' });
      case 'TEXTAREA':
        return field({ ...base, kind: 'textarea', value: typeof value === 'string' ? value : '' });
      default:
        return field({ ...base, kind: 'text', value: typeof value === 'string' ? value : '' });
    }
  });
}

/** A field with the ids of its hint and error for `aria-describedby`. */
export function field(f: Omit<FieldView, 'describedby'>): FieldView {
  const describedby = [f.hint ? `${f.id}-hint` : '', f.error ? `${f.id}-error` : ''].filter(Boolean).join(' ');
  return { ...f, describedby };
}

/** Where the error summary links to: the control, or a group's first control. */
export const hrefOf = (f: FieldView) => (f.kind === 'radios' || f.kind === 'checkboxes' ? `#${f.id}-1` : `#${f.id}`);

/** Field errors of a refused write, by form field name; violations of no form field go to the summary. */
export function errorsOf(apiError: ApiError, rename: Record<string, string> = {}): { fields: Map<string, string>; other: string[] } {
  const fields = new Map<string, string>();
  const other: string[] = [];
  const violations = apiError.details.filter((d): d is { type: 'FIELD_VIOLATION' } & FieldViolation => d.type === 'FIELD_VIOLATION');
  for (const v of violations) {
    const name = rename[v.field] ?? v.field;
    if (!fields.has(name)) fields.set(name, friendly(v.field, v.description));
  }
  if (violations.length === 0) other.push(apiError.message);
  return { fields, other };
}

/** Descriptions written for API clients, reworded where they would puzzle a visitor. */
function friendly(fieldName: string, description: string): string {
  if (fieldName === 'email' && description.startsWith('must match pattern')) return 'Enter an email address like name@example.com';
  if (fieldName === 'email' && /already exists/.test(description)) return 'An account with this email address already exists. Sign in, or reset your password.';
  return description;
}

/** The posted form's string fields (anything else in the body is ignored). */
export function formOf(request: FastifyRequest): Form {
  const body = request.body;
  const form: Form = {};
  if (!body || typeof body !== 'object' || Array.isArray(body)) return form;
  for (const [key, value] of Object.entries(body as Record<string, unknown>)) {
    if (typeof value === 'string') form[key] = value;
    else if (Array.isArray(value) && value.every((v) => typeof v === 'string')) form[key] = value as string[];
  }
  return form;
}

/** One field's text (its first value when it repeats; '' when absent). */
export const text = (form: Form, name: string) => {
  const value = form[name];
  return typeof value === 'string' ? value : Array.isArray(value) ? (value[0] ?? '') : '';
};

/** The request's query string, parsed. */
export const queryOf = (request: FastifyRequest) => (request.query ?? {}) as Record<string, unknown>;
