import { InvalidArgument, type FieldViolation } from '../platform/errors.js';
import type { EmailTemplateKind } from './email-template-kinds.js';

/** `{{name}}`, spaces inside the braces allowed (`{{ name }}`). */
const PLACEHOLDER = /\{\{\s*([^{}]*?)\s*\}\}/g;

/** The parts of a template that may hold placeholders. */
export interface TemplateParts {
  subject: string;
  body: string;
  text_body?: string | null;
}

/**
 * Every placeholder problem of a template, each on the part it is in: names the kind does not
 * declare, an unclosed `{{`, and required placeholders (the reset link) missing from a body.
 */
export function placeholderViolations(kind: EmailTemplateKind, parts: TemplateParts): FieldViolation[] {
  const declared = new Set(kind.placeholders.map((p) => p.name));
  const offered = kind.placeholders.map((p) => p.name).join(', ');
  const violations: FieldViolation[] = [];
  for (const field of ['subject', 'body', 'text_body'] as const) {
    const text = parts[field];
    if (typeof text !== 'string') continue;
    const unknown = new Set<string>();
    for (const m of text.matchAll(PLACEHOLDER)) if (!declared.has(m[1])) unknown.add(m[1]);
    for (const name of unknown) {
      violations.push({ field, description: `{{${name}}} is not a placeholder of ${kind.kind} (it offers: ${offered})` });
    }
    if (text.replace(PLACEHOLDER, '').includes('{{')) violations.push({ field, description: 'has a "{{" that does not close a placeholder with "}}"' });
    if (field === 'subject') continue;
    const used = new Set([...text.matchAll(PLACEHOLDER)].map((m) => m[1]));
    for (const p of kind.placeholders) {
      if (p.required && !used.has(p.name)) violations.push({ field, description: `must contain {{${p.name}}} (${p.description})` });
    }
  }
  return violations;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]);

/**
 * Fills a template: `values` first, the kind's sample values for the rest. Values are
 * HTML-escaped in the HTML body (a customer name cannot inject markup) and inserted as written
 * in the subject and the text body.
 */
export function renderTemplate(kind: EmailTemplateKind, parts: TemplateParts, values: Record<string, string>): TemplateParts {
  const declared = new Set(kind.placeholders.map((p) => p.name));
  const violations: FieldViolation[] = Object.keys(values)
    .filter((name) => !declared.has(name))
    .map((name) => ({ field: `values.${name}`, description: `is not a placeholder of ${kind.kind}` }));
  violations.push(...placeholderViolations(kind, parts));
  if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
  const valueOf = (name: string) => values[name] ?? kind.placeholders.find((p) => p.name === name)!.sample;
  const fill = (text: string, escape: boolean) => text.replace(PLACEHOLDER, (_, name: string) => (escape ? escapeHtml(valueOf(name)) : valueOf(name)));
  return {
    // A line break in a value must not start a new mail header.
    subject: fill(parts.subject, false).replace(/[\r\n]+/g, ' '),
    body: fill(parts.body, true),
    ...(parts.text_body ? { text_body: fill(parts.text_body, false) } : {}),
  };
}
