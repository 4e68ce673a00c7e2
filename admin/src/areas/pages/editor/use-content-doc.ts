/**
 * The editing state of one resource (a page, a post, a view's overlay): what the person typed,
 * the version it was read at (etag), save with If-Match, and conflicts kept, never lost:
 *
 * - a save sends only the fields changed since the version read, with `If-Match`;
 * - 409 ABORTED (someone else saved first) keeps every typed value and holds the current version
 *   (the error's RESOURCE_INFO) as `conflict.theirs`, for a diff and a choice: keep mine (saved on
 *   top of theirs) or take theirs, field by field or all at once;
 * - any other failure keeps the typed values and shows the error;
 * - typed values are also kept in this browser (localStorage) until saved, so a reload or a
 *   crashed tab loses nothing either: `stored` offers them back.
 */
import { useCallback, useEffect, useMemo, useRef, useState } from 'react';
import { ApiError } from '@siteplatform/sdk';

export type Values = Record<string, unknown>;

export interface Version {
  etag?: string;
  values: Values;
}

export interface StoredDraft {
  etag?: string;
  values: Values;
  time: string;
}

const same = (a: unknown, b: unknown) => JSON.stringify(a ?? null) === JSON.stringify(b ?? null);
const draftKey = (key: string) => `siteplatform.draft:${key}`;

export interface ContentDoc {
  values: Values;
  /** The version read (or last saved). */
  base: Version | undefined;
  /** Bumps whenever values were replaced from outside (load, theirs taken, a draft restored): rich-text editors show them anew. */
  resetKey: number;
  dirtyFields: string[];
  dirty: boolean;
  set(field: string, value: unknown): void;
  setMany(values: Values): void;
  /** Answers the saved version, or undefined when the save failed (or met a conflict). */
  save(): Promise<Version | undefined>;
  saving: boolean;
  /** The last failed save (not a conflict). */
  error: unknown;
  conflict: { theirs: Version } | undefined;
  /** Keep my values and save them over their version. */
  keepMine(): Promise<Version | undefined>;
  /** Take their value of one field, or of every field. */
  takeTheirs(field?: string): void;
  /** A draft kept in this browser from an earlier visit, when it differs from what was read. */
  stored: StoredDraft | undefined;
  restoreStored(): void;
  discardStored(): void;
  /** A newer version written by this person through another call (publish, schedule), changing no field of the doc. */
  adopt(version: Version): void;
  /** Replace everything by this version (a revision restored). */
  replace(version: Version): void;
}

export function useContentDoc(opts: {
  /** Identity of the draft in this browser (resource name plus view). */
  key: string;
  fields: readonly string[];
  /** The version read from the server; a new etag (a refetch) becomes the base when nothing is typed. */
  loaded: Version | undefined;
  /** Writes the changed fields conditionally on `etag`; answers the new version. */
  write(changes: Values, etag: string | undefined, all: Values): Promise<Version>;
  onSaved?(version: Version): void;
}): ContentDoc {
  const { key, fields, loaded } = opts;
  const [base, setBase] = useState<Version | undefined>(loaded);
  // Baseline: the values the person's editors produced for the base version (a save keeps the
  // editor's own HTML, not the sanitised echo, so a saved field does not look changed).
  const [baseline, setBaseline] = useState<Values>(loaded?.values ?? {});
  const [values, setValues] = useState<Values>(loaded?.values ?? {});
  const [resetKey, setResetKey] = useState(0);
  const [saving, setSaving] = useState(false);
  const [error, setError] = useState<unknown>();
  const [conflict, setConflict] = useState<{ theirs: Version }>();
  const [stored, setStored] = useState<StoredDraft | undefined>();
  const writeRef = useRef(opts.write);
  writeRef.current = opts.write;
  const onSavedRef = useRef(opts.onSaved);
  onSavedRef.current = opts.onSaved;

  const dirtyFields = useMemo(() => fields.filter((f) => !same(values[f], baseline[f])), [fields, values, baseline]);
  const dirty = dirtyFields.length > 0;

  // First read (or another resource/view): start from it, and look for a draft kept in this browser.
  const loadedKeyRef = useRef<string | undefined>(undefined);
  useEffect(() => {
    if (!loaded) return;
    const isNewKey = loadedKeyRef.current !== key;
    if (!isNewKey && (dirty || saving || conflict)) return;
    if (!isNewKey && base?.etag === loaded.etag) return;
    loadedKeyRef.current = key;
    setBase(loaded);
    setBaseline(loaded.values);
    setValues(loaded.values);
    setResetKey((k) => k + 1);
    if (isNewKey) {
      setConflict(undefined);
      setError(undefined);
      const raw = window.localStorage.getItem(draftKey(key));
      const draft = raw ? (JSON.parse(raw) as StoredDraft) : undefined;
      setStored(draft && fields.some((f) => f in draft.values && !same(draft.values[f], loaded.values[f])) ? draft : undefined);
    }
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [loaded, key]);

  // Typed values survive a reload: kept in this browser until saved.
  useEffect(() => {
    if (!base || stored) return;
    if (dirty) {
      const draft: StoredDraft = { etag: base.etag, values: Object.fromEntries(dirtyFields.map((f) => [f, values[f]])), time: new Date().toISOString() };
      window.localStorage.setItem(draftKey(key), JSON.stringify(draft));
    } else window.localStorage.removeItem(draftKey(key));
  }, [values, dirty, dirtyFields, base, key, stored]);

  // Leaving the page with unsaved text asks first.
  useEffect(() => {
    if (!dirty) return;
    const warn = (e: BeforeUnloadEvent) => e.preventDefault();
    window.addEventListener('beforeunload', warn);
    return () => window.removeEventListener('beforeunload', warn);
  }, [dirty]);

  const set = useCallback((field: string, value: unknown) => setValues((v) => ({ ...v, [field]: value })), []);
  const setMany = useCallback((more: Values) => setValues((v) => ({ ...v, ...more })), []);

  const saveOver = useCallback(
    async (etag: string | undefined, against: Values): Promise<Version | undefined> => {
      const sent = { ...values };
      const changes = Object.fromEntries(fields.filter((f) => !same(sent[f], against[f])).map((f) => [f, sent[f]]));
      setSaving(true);
      setError(undefined);
      try {
        const saved = await writeRef.current(changes, etag, sent);
        setBase(saved);
        // Fields typed into during the save stay changed; the rest are now the saved version.
        setBaseline({ ...saved.values, ...Object.fromEntries(fields.filter((f) => f in changes).map((f) => [f, sent[f]])) });
        setValues((now) => {
          const next = { ...now };
          for (const f of fields) if (!(f in changes) && same(now[f], sent[f])) next[f] = saved.values[f];
          return next;
        });
        setConflict(undefined);
        onSavedRef.current?.(saved);
        return saved;
      } catch (err) {
        if (ApiError.is(err, 'ABORTED') && err.currentResource) {
          const theirs = err.currentResource as Values & { etag?: string };
          setConflict({ theirs: { etag: theirs.etag, values: theirs } });
        } else setError(err);
        return undefined;
      } finally {
        setSaving(false);
      }
    },
    [values, fields],
  );

  const save = useCallback(() => saveOver(base?.etag, baseline), [saveOver, base, baseline]);

  const keepMine = useCallback(async () => {
    if (!conflict) return undefined;
    const theirs = conflict.theirs;
    setBase(theirs);
    setBaseline(theirs.values);
    return saveOver(theirs.etag, theirs.values);
  }, [conflict, saveOver]);

  const takeTheirs = useCallback(
    (field?: string) => {
      if (!conflict) return;
      const theirs = conflict.theirs;
      if (field) {
        setValues((v) => ({ ...v, [field]: theirs.values[field] }));
      } else {
        setBase(theirs);
        setBaseline(theirs.values);
        setValues(theirs.values);
        setConflict(undefined);
      }
      setResetKey((k) => k + 1);
    },
    [conflict],
  );

  const restoreStored = useCallback(() => {
    if (!stored) return;
    setValues((v) => ({ ...v, ...stored.values }));
    setResetKey((k) => k + 1);
    setStored(undefined);
  }, [stored]);
  const discardStored = useCallback(() => {
    window.localStorage.removeItem(draftKey(key));
    setStored(undefined);
  }, [key]);

  // Publishing calls change no edited field (state and publish_time are not fields of the doc): only the version moves.
  const adopt = useCallback((version: Version) => setBase(version), []);
  const replace = useCallback((version: Version) => {
    setBase(version);
    setBaseline(version.values);
    setValues(version.values);
    setConflict(undefined);
    setResetKey((k) => k + 1);
  }, []);

  return { adopt, replace, values, base, resetKey, dirtyFields, dirty, set, setMany, save, saving, error, conflict, keepMine, takeTheirs, stored, restoreStored, discardStored };
}
