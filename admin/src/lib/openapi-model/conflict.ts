import { initialValues, jsonEqual, toFormValue, toWireValue, type FormField, type FormValues } from './form.js';

/** One field of a conflict: what it was when the person started, what they made it, what it is now. */
export interface ConflictRow {
  path: string;
  label: string;
  base: unknown;
  yours: unknown;
  theirs: unknown;
  changedByYou: boolean;
  changedByThem: boolean;
  /** Both changed it, to different values: the person must choose. */
  clash: boolean;
}

const wireOf = (f: FormField, v: unknown) => {
  try {
    return toWireValue(f, toFormValue(f, v)) ?? null;
  } catch {
    return null;
  }
};

/**
 * What a 409 ABORTED means for this form: for every field either side changed, the value it had
 * when editing began (`base`), the person's (`yours`) and the current resource's (`theirs`, from the
 * RESOURCE_INFO detail).
 */
export function conflictRows(
  fields: readonly FormField[],
  base: Record<string, unknown>,
  yours: FormValues,
  current: Record<string, unknown>,
): ConflictRow[] {
  const rows: ConflictRow[] = [];
  for (const f of fields) {
    const b = wireOf(f, base[f.name]);
    const t = wireOf(f, current[f.name]);
    let y: unknown;
    try {
      y = toWireValue(f, yours[f.name] ?? null) ?? null;
    } catch {
      y = yours[f.name];
    }
    const changedByYou = !f.readOnly && !jsonEqual(y, b);
    const changedByThem = !jsonEqual(t, b);
    if (!changedByYou && !changedByThem) continue;
    rows.push({ path: f.path, label: f.label, base: b, yours: y, theirs: t, changedByYou, changedByThem, clash: changedByYou && changedByThem && !jsonEqual(y, t) });
  }
  return rows;
}

/**
 * Keep mine: the form now starts from the current resource (its etag becomes the `If-Match` of the
 * retry) with the person's own changes laid on top, so re-sending writes exactly what they changed.
 */
export function keepMine(fields: readonly FormField[], base: Record<string, unknown>, yours: FormValues, current: Record<string, unknown>) {
  const values = initialValues(fields, current);
  for (const row of conflictRows(fields, base, yours, current)) {
    if (row.changedByYou) {
      const name = row.path.split('.')[0]!;
      values[name] = yours[name] ?? null;
    }
  }
  return { values, original: current, etag: current.etag as string | undefined };
}

/** Take theirs: drop the person's edits and start over from the current resource. */
export function takeTheirs(fields: readonly FormField[], current: Record<string, unknown>) {
  return { values: initialValues(fields, current), original: current, etag: current.etag as string | undefined };
}

/** A value as a person reads it in the conflict table. */
export function displayValue(value: unknown): string {
  if (value === null || value === undefined || value === '') return '(empty)';
  if (Array.isArray(value)) return value.length === 0 ? '(none)' : value.map((v) => (typeof v === 'string' ? v : JSON.stringify(v))).join(', ');
  if (typeof value === 'object') return JSON.stringify(value);
  if (typeof value === 'boolean') return value ? 'Yes' : 'No';
  return String(value);
}
