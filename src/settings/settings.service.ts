import type { RequestContext } from '../platform/auth/context.js';
import type { Database, SqlDialect } from '../platform/db/database.js';
import type { Db, Trx } from '../platform/db/schema.js';
import { Aborted, FailedPrecondition, InvalidArgument, NotFound, type FieldViolation } from '../platform/errors.js';
import type { VirtualSource } from '../platform/resource/declaration.js';
import { etagMatches } from '../platform/resource/engine.js';
import { etagOf } from '../platform/resource/mapper.js';
import { isViewOf } from '../views/index.js';
import { checkSettingValue, descriptorOf, SETTING_DESCRIPTORS, type SettingDescriptor } from './setting-registry.js';
import { countViewOverrides, deleteViewOverrides, insertDefaultRowOnce, lockSetting, storedSettings, updateSetting, websiteSettingValue, type SettingRow } from './settings.repo.js';

/**
 * A `settings.value` column as written (undefined: not set, the default applies), for areas that
 * read a setting inside a query of their own (the public media read joins one).
 */
export function decodeSettingValue(dialect: SqlDialect, value: unknown): unknown {
  // Values are stored wrapped (`{"v": …}`): PostgreSQL's driver hands jsonb string scalars back
  // already parsed, which a reader could not tell from JSON text.
  return value !== null && value !== undefined ? dialect.readJson<{ v: unknown }>(value).v : undefined;
}

/** The website itself, in `settings.scope_id`; any other value is a view id. */
export const WEBSITE_SCOPE = '';
/** Writes of one `:batch_update`. */
export const MAX_BATCH_WRITES = 100;

/** Something that must happen in the same transaction when a setting changes (the custom domain). */
export type SettingWriteHook = (trx: Trx, ctx: RequestContext, websiteId: string, value: unknown) => Promise<void>;

export interface SettingsDeps {
  database: Database;
  platformDomain: string;
  /** By path; run when the website-level value of that path is written. */
  writeHooks: Record<string, SettingWriteHook>;
}

interface Scope {
  websiteId: string;
  /** Absent: the website's own settings. */
  viewId?: string;
}

/** One write of an update or a batch: null returns the setting to the inherited value. */
interface SettingWrite {
  descriptor: SettingDescriptor;
  value: unknown;
  etag?: string;
}

const RESOURCE_FIELDS = new Set(['name', 'id', 'path', 'value', 'type', 'source', 'view_overridable', 'etag', 'create_time', 'update_time']);

/** Thrown inside a transaction to roll it back and still answer (validate_only). */
class RollbackWith {
  constructor(readonly result: unknown) {}
}

/**
 * Website settings and per-view overrides: registry descriptors merged with stored values, read
 * and written by path. Rows exist only for paths someone wrote; the rest answer their defaults.
 */
export function createSettingsService(deps: SettingsDeps) {
  const { database } = deps;
  const { dialect } = database;

  const scopeOf = (params: Record<string, string>): Scope => ({ websiteId: params.website_id, viewId: params.view_id });

  function descriptorOrNotFound(path: string): SettingDescriptor {
    const d = descriptorOf(path);
    if (!d) throw new NotFound(`setting ${path}`);
    return d;
  }

  // The website is the caller's (the request context checked it), so a view of the website is one of the account.
  async function requireView(db: Db | Trx, scope: Scope): Promise<void> {
    if (!scope.viewId) return;
    if (!(await isViewOf(db, scope.websiteId, scope.viewId))) throw new NotFound(`view ${scope.viewId}`);
  }

  /** Stored rows of the website and (for a view) the view, optionally for one path. */
  async function storedRows(db: Db | Trx, ctx: RequestContext, scope: Scope, path?: string): Promise<{ website: Map<string, SettingRow>; view: Map<string, SettingRow> }> {
    const rows = await storedSettings(db, ctx.access!.accountId, scope.websiteId, scope.viewId ? [WEBSITE_SCOPE, scope.viewId] : [WEBSITE_SCOPE], path);
    const website = new Map<string, SettingRow>();
    const view = new Map<string, SettingRow>();
    for (const row of rows) (row.scope_id === WEBSITE_SCOPE ? website : view).set(row.path, row);
    return { website, view };
  }

  const storedValue = (row: SettingRow | undefined): unknown => decodeSettingValue(dialect, row?.value);

  /** The API shape of one setting in a scope. */
  function present(scope: Scope, d: SettingDescriptor, websiteRow: SettingRow | undefined, viewRow: SettingRow | undefined): Record<string, unknown> {
    const own = scope.viewId ? viewRow : websiteRow;
    const viewValue = scope.viewId ? storedValue(viewRow) : undefined;
    const websiteValue = storedValue(websiteRow);
    const [value, source] =
      viewValue !== undefined ? [viewValue, 'VIEW'] : websiteValue !== undefined ? [websiteValue, 'WEBSITE'] : [d.default_value, 'DEFAULT'];
    const base = scope.viewId ? `websites/${scope.websiteId}/views/${scope.viewId}` : `websites/${scope.websiteId}`;
    const resource: Record<string, unknown> = {
      name: `${base}/settings/${d.path}`,
      id: d.path,
      path: d.path,
      value,
      type: d.type,
      source,
      view_overridable: d.view_overridable,
    };
    if (own && Number(own.revision) > 0) {
      resource.create_time = new Date(Number(own.create_time)).toISOString();
      resource.update_time = new Date(Number(own.update_time)).toISOString();
    }
    // A view's setting shows the website's value where it does not override: its etag covers both.
    const etag = (row: SettingRow | undefined) => (row ? etagOf(row) : '0');
    resource.etag = scope.viewId ? `${etag(viewRow)}.${etag(websiteRow)}` : etag(websiteRow);
    return resource;
  }

  /** What an Update body writes: undefined (nothing), null (back to the inherited value) or a value. */
  function valueToWrite(body: Record<string, unknown>, updateMask: string | undefined): { write: boolean; value: unknown } {
    if (updateMask === undefined) return { write: body.value !== undefined && body.value !== null, value: body.value };
    const listed = updateMask.split(',').map((p) => p.trim()).filter(Boolean);
    if (listed.length === 0) throw InvalidArgument.field('update_mask', 'lists no field');
    for (const p of listed) if (p !== '*' && !RESOURCE_FIELDS.has(p)) throw InvalidArgument.field('update_mask', `${p} is not a field of Setting`);
    const write = listed.includes('value') || listed.includes('*');
    return { write, value: body.value ?? null };
  }

  function checkWrite(d: SettingDescriptor, value: unknown, scope: Scope, field: string, pathField: string, violations: FieldViolation[]): unknown {
    if (scope.viewId && !d.view_overridable) {
      violations.push({ field: pathField, description: `${d.path} is not view-overridable; set it on the website` });
      return undefined;
    }
    const checked = checkSettingValue(d, value, { platformDomain: deps.platformDomain });
    if ('problem' in checked) {
      violations.push({ field, description: checked.problem });
      return undefined;
    }
    return checked.value;
  }

  async function inTransaction<T>(validateOnly: boolean, work: (trx: Trx) => Promise<T>): Promise<T> {
    try {
      return await database.db.transaction().execute(async (trx) => {
        const value = await work(trx);
        if (validateOnly) throw new RollbackWith(value);
        return value;
      });
    } catch (err) {
      if (err instanceof RollbackWith) return err.result as T;
      throw err;
    }
  }

  /**
   * Writes in one transaction, all or nothing: rows are locked in path order (no deadlocks between
   * overlapping batches), every etag is checked before anything is written, then each row is
   * upserted with revision + 1 and the write hooks run.
   */
  async function writeAll(trx: Trx, ctx: RequestContext, scope: Scope, writes: SettingWrite[]): Promise<Map<string, Record<string, unknown>>> {
    await requireView(trx, scope);
    const scopeId = scope.viewId ?? WEBSITE_SCOPE;
    const sorted = [...writes].sort((a, b) => (a.descriptor.path < b.descriptor.path ? -1 : 1));
    const locked = new Map<string, SettingRow>();
    for (const w of sorted) {
      const key = { websiteId: scope.websiteId, scopeId, path: w.descriptor.path, accountId: ctx.access!.accountId };
      await insertDefaultRowOnce(trx, key, ctx.now);
      locked.set(w.descriptor.path, await lockSetting(trx, dialect, key));
    }
    const websiteRows = scope.viewId ? (await storedRows(trx, ctx, { websiteId: scope.websiteId })).website : locked;
    for (const w of writes) {
      const own = locked.get(w.descriptor.path)!;
      const current = present(scope, w.descriptor, scope.viewId ? websiteRows.get(w.descriptor.path) : own, scope.viewId ? own : undefined);
      if (w.etag && !etagMatches(w.etag, current.etag as string)) {
        throw new Aborted(`setting ${w.descriptor.path} changed since the etag sent for it was read`, current);
      }
    }
    const answers = new Map<string, Record<string, unknown>>();
    for (const w of sorted) {
      const previous = locked.get(w.descriptor.path)!;
      const value = w.value === null ? null : dialect.json({ v: w.value });
      const next: SettingRow = {
        ...previous,
        value,
        revision: Number(previous.revision) + 1,
        // A row that was only the default until now counts as created by this write.
        create_time: Number(previous.revision) === 0 ? ctx.now : previous.create_time,
        update_time: Math.max(ctx.now, Number(previous.update_time)),
      };
      await updateSetting(trx, { websiteId: scope.websiteId, scopeId, path: w.descriptor.path }, { value, revision: next.revision, create_time: next.create_time, update_time: next.update_time });
      if (!scope.viewId) await deps.writeHooks[w.descriptor.path]?.(trx, ctx, scope.websiteId, w.value);
      answers.set(
        w.descriptor.path,
        present(scope, w.descriptor, scope.viewId ? websiteRows.get(w.descriptor.path) : next, scope.viewId ? next : undefined),
      );
    }
    return answers;
  }

  const source: VirtualSource = {
    async all(ctx, params) {
      const scope = scopeOf(params);
      await requireView(database.db, scope);
      const rows = await storedRows(database.db, ctx, scope);
      return SETTING_DESCRIPTORS.map((d) => present(scope, d, rows.website.get(d.path), rows.view.get(d.path)));
    },
    async get(ctx, params) {
      const scope = scopeOf(params);
      const d = descriptorOrNotFound(params.path);
      await requireView(database.db, scope);
      const rows = await storedRows(database.db, ctx, scope, d.path);
      return present(scope, d, rows.website.get(d.path), rows.view.get(d.path));
    },
    async update(ctx, params, body, opts) {
      const scope = scopeOf(params);
      const d = descriptorOrNotFound(params.path);
      const { write, value } = valueToWrite(body, opts.updateMask);
      if (!write) {
        // Nothing to write: answer the setting as it is (If-Match still applies).
        const current = await source.get(ctx, params);
        if (opts.ifMatch && !etagMatches(opts.ifMatch, current.etag as string)) throw new Aborted('the setting changed since the etag in If-Match was read', current);
        return current;
      }
      await requireView(database.db, scope);
      if (scope.viewId && !d.view_overridable) {
        throw new FailedPrecondition('SETTING_NOT_VIEW_OVERRIDABLE', `${d.path} is not view-overridable; set it on the website (websites/${scope.websiteId}/settings/${d.path})`);
      }
      const violations: FieldViolation[] = [];
      const stored = checkWrite(d, value, scope, 'value', 'path', violations);
      if (violations.length) throw new InvalidArgument(violations.map((v) => `${v.field}: ${v.description}`).join('; '), violations);
      const answers = await inTransaction(opts.validateOnly ?? false, (trx) => writeAll(trx, ctx, scope, [{ descriptor: d, value: stored, etag: opts.ifMatch }]));
      return answers.get(d.path)!;
    },
  };

  /**
   * `:batch_update`: every request checked first (each bad one named as `requests[i].path` or
   * `requests[i].value`), then all written in one transaction, or none.
   */
  async function batchUpdate(ctx: RequestContext, params: Record<string, string>, body: { requests: Array<{ path: string; value: unknown; etag?: string }>; validate_only?: boolean }) {
    const scope = scopeOf(params);
    await requireView(database.db, scope);
    const violations: FieldViolation[] = [];
    const seen = new Set<string>();
    const writes: SettingWrite[] = [];
    body.requests.forEach((request, i) => {
      const d = descriptorOf(request.path);
      if (!d) {
        violations.push({ field: `requests[${i}].path`, description: `${request.path} is not a setting (see setting_descriptors)` });
        return;
      }
      if (seen.has(d.path)) {
        violations.push({ field: `requests[${i}].path`, description: `${d.path} is written twice in one batch` });
        return;
      }
      seen.add(d.path);
      const stored = checkWrite(d, request.value, scope, `requests[${i}].value`, `requests[${i}].path`, violations);
      writes.push({ descriptor: d, value: stored, etag: request.etag });
    });
    if (violations.length) throw new InvalidArgument(`nothing was written: ${violations.map((v) => `${v.field}: ${v.description}`).join('; ')}`, violations);
    const answers = await inTransaction(body.validate_only === true, (trx) => writeAll(trx, ctx, scope, writes));
    return { settings: writes.map((w) => answers.get(w.descriptor.path)) };
  }

  return { source, batchUpdate };
}

/** What a view's deletion does to its overrides: counted for the refusal, deleted with `force`. */
export const viewSettingsReference = {
  target: 'views',
  describe: 'settings (per-view overrides)',
  count: (db: Db | Trx, websiteId: string, viewId: string): Promise<number> => countViewOverrides(db, websiteId, viewId),
  detach: (db: Db | Trx, websiteId: string, viewId: string): Promise<void> => deleteViewOverrides(db, websiteId, viewId),
};

/** A website's own value of a setting, else the registry default (a setting another area reads, e.g. analytics' retention). */
export async function readWebsiteSetting(db: Db | Trx, dialect: SqlDialect, websiteId: string, path: string): Promise<unknown> {
  return decodeSettingValue(dialect, await websiteSettingValue(db, websiteId, path)) ?? descriptorOf(path)?.default_value;
}
