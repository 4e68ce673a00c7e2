import { InvalidArgument } from '../platform/errors.js';

/** `{{name}}` placeholders; anything else (single braces, `{{ spaced }}`, `{{1x}}`) is plain text. */
const PLACEHOLDER = /\{\{([A-Za-z_][A-Za-z0-9_]*)\}\}/g;
/** A variable name as declared on an instruction. */
export const VARIABLE_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/;

/** The distinct `{{names}}` a template uses, in order of first use. */
export function placeholdersOf(content: string): string[] {
  return [...new Set([...content.matchAll(PLACEHOLDER)].map((m) => m[1]))];
}

/** Refuses a template that uses a `{{name}}` the instruction does not declare, naming `field`. */
export function checkTemplate(content: string, variables: readonly string[], field: string): void {
  const undeclared = placeholdersOf(content).filter((name) => !variables.includes(name));
  if (undeclared.length) {
    throw InvalidArgument.field(field, `uses ${undeclared.map((n) => `{{${n}}}`).join(', ')}, not declared in the instruction's variables`);
  }
}

/** Refuses malformed or repeated variable names. */
export function checkVariables(variables: readonly string[], field = 'variables'): void {
  const seen = new Set<string>();
  for (const name of variables) {
    if (!VARIABLE_NAME.test(name)) throw InvalidArgument.field(field, `${JSON.stringify(name)} is not a variable name (a letter or _, then letters, digits, _)`);
    if (seen.has(name)) throw InvalidArgument.field(field, `${name} is declared twice`);
    seen.add(name);
  }
}

/** Replaces each `{{name}}` by its value; every other character, other braces included, is kept as written. */
export function renderTemplate(content: string, values: Record<string, string | number | boolean>): string {
  return content.replace(PLACEHOLDER, (whole, name: string) => (Object.hasOwn(values, name) ? String(values[name]) : whole));
}
