import { createHash } from 'node:crypto';
import type { SqlDialect } from '../db/database.js';
import type { FieldDecl, ResourceDecl, Row } from './declaration.js';
import { templateParams } from './paths.js';
import { isReadable } from './schemas.js';

/** Column of a field, or undefined when the engine does not store it. */
export const columnOf = (name: string, field: FieldDecl): string | undefined =>
  field.column === false ? undefined : (field.column ?? name);

/**
 * Strong etag of a stored row: changes with every write (the row's revision). The create time
 * tells incarnations apart, so a row deleted and re-created under the same client-chosen id does
 * not repeat an etag a client may still hold.
 */
export function etagOf(row: Row): string {
  // Revision 0 is a never-written singleton or setting (defaults only): one etag for that state.
  if (Number(row.revision) === 0) return '0';
  // Cheap on purpose (computed for every listed row); opaque to clients, never parsed back.
  return `${Number(row.revision).toString(36)}-${Number(row.create_time).toString(36)}`;
}

/**
 * Whether a resource's etag must cover its computed fields as well as its row: they are read from
 * other rows (`hooks.enrich`: a search index's document count, a member's display name) or off the
 * clock (`etagCoversComputed`), so they change without a write of the row, and a Get answering 304
 * to an etag of the old answer would be wrong (SPEC 4.1 rule 4).
 */
export function etagCoversComputed(decl: ResourceDecl): boolean {
  return Boolean(decl.hooks?.enrich || decl.etagCoversComputed);
}

/** A stored value as the API shows it. */
export function toWire(field: FieldDecl, value: unknown, dialect: SqlDialect): unknown {
  if (value === null || value === undefined) return field.type === 'string_list' ? [] : undefined;
  switch (field.type) {
    case 'boolean':
      return value === true || value === 1 || value === '1';
    case 'integer':
    case 'number':
      return Number(value);
    case 'timestamp':
      return new Date(Number(value)).toISOString();
    case 'string_list':
    case 'object':
    case 'json':
      return dialect.readJson(value);
    default:
      return value;
  }
}

/** An API value as stored. */
export function toStored(field: FieldDecl, value: unknown, dialect: SqlDialect): unknown {
  if (value === null || value === undefined) return null;
  switch (field.type) {
    case 'boolean':
      return dialect.bool(Boolean(value));
    case 'timestamp':
      return Date.parse(String(value));
    case 'string_list':
    case 'object':
    case 'json':
      return dialect.json(value);
    default:
      return value;
  }
}

/** Builds `name` from a row: the item path with the row's id last and its columns for the other parameters. */
export function compileNameBuilder(template: string): (row: Row) => string {
  const params = templateParams(template);
  const parts = template.split(/\{[a-z_]+\}/);
  const last = params.length - 1;
  return (row) => {
    let name = parts[0];
    for (let i = 0; i < params.length; i++) name += String(i === last ? row.id : row[params[i]]) + parts[i + 1];
    return name;
  };
}

/**
 * Compiles the row → resource mapping of a declaration once (name, readable fields, timestamps,
 * etag, computed fields), so listing a page does no per-row reflection over the declaration.
 */
export function compileMapper(decl: ResourceDecl, dialect: SqlDialect): (row: Row) => Record<string, unknown> {
  const nameOf = compileNameBuilder(decl.itemPath);
  const readable: Array<[string, string, FieldDecl]> = [];
  for (const [name, field] of Object.entries(decl.fields)) {
    const column = columnOf(name, field);
    if (column && isReadable(field)) readable.push([name, column, field]);
  }
  const present = decl.hooks?.present;
  const singleton = decl.kind === 'singleton';
  const computed = etagCoversComputed(decl)
    ? Object.entries(decl.fields)
        .filter(([, field]) => field.column === false && isReadable(field))
        .map(([name]) => name)
    : [];
  return (row) => {
    // A singleton's row id is its parent's id: it fills the name but is not shown (SPEC 2.1).
    const resource: Record<string, unknown> = singleton ? { name: nameOf(row) } : { name: nameOf(row), id: row.id };
    for (const [name, column, field] of readable) {
      const value = toWire(field, row[column], dialect);
      if (value !== undefined) resource[name] = value;
    }
    // Never-written singletons (revision 0) omit timestamps (SPEC 2.1).
    if (!singleton || Number(row.revision) > 0) {
      resource.create_time = new Date(Number(row.create_time)).toISOString();
      resource.update_time = new Date(Number(row.update_time)).toISOString();
    }
    resource.etag = etagOf(row);
    present?.(row, resource);
    if (computed.length) {
      // Opaque like the row's part: a short digest of what the row's revision does not tell.
      const digest = createHash('sha1').update(JSON.stringify(computed.map((name) => resource[name] ?? null))).digest('base64url').slice(0, 10);
      resource.etag = `${resource.etag}.${digest}`;
    }
    return resource;
  };
}
