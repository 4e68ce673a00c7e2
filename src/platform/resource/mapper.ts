import { createHash } from 'node:crypto';
import type { SqlDialect } from '../db/database.js';
import type { FieldDecl, ResourceDecl, Row } from './declaration.js';
import { fillTemplate } from './paths.js';
import { isReadable } from './schemas.js';

/** Column of a field, or undefined when the engine does not store it. */
export const columnOf = (name: string, field: FieldDecl): string | undefined =>
  field.column === false ? undefined : (field.column ?? name);

/**
 * Strong etag of a stored row: changes with every write (the row's revision). The create time
 * tells incarnations apart, so a row deleted and re-created under the same client-chosen id does
 * not repeat an etag a client may still hold.
 */
export function etagOf(table: string, row: Row): string {
  return createHash('sha1').update(`${table}/${row.id}/${Number(row.create_time)}/${row.revision}`).digest('base64url').slice(0, 20);
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
      return dialect.json(value);
    default:
      return value;
  }
}

/** Maps a stored row to the resource as returned: name, id, fields, timestamps, etag, computed fields. */
export function toResource(decl: ResourceDecl, row: Row, dialect: SqlDialect): Record<string, unknown> {
  const resource: Record<string, unknown> = { name: fillTemplate(decl.itemPath, row), id: row.id };
  for (const [name, field] of Object.entries(decl.fields)) {
    const column = columnOf(name, field);
    if (!column || !isReadable(field)) continue;
    const value = toWire(field, row[column], dialect);
    if (value !== undefined) resource[name] = value;
  }
  resource.create_time = new Date(Number(row.create_time)).toISOString();
  resource.update_time = new Date(Number(row.update_time)).toISOString();
  resource.etag = etagOf(decl.table, row);
  decl.hooks?.present?.(row, resource);
  return resource;
}
