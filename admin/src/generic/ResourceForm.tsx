/**
 * A form generated from a request schema: Create, Update (only the changed fields, with
 * `update_mask` and `If-Match`) or a custom method. Checked as the person types, first in the
 * browser, then by the server with `validate_only` where the operation takes it; violations land on
 * their fields; a 409 ABORTED shows what changed and lets the person keep theirs or take the new.
 */
import { useEffect, useMemo, useRef, useState, type FormEvent } from 'react';
import { Alert, Button, Group, Stack, Table, Text, Title } from '@mantine/core';
import { useApi } from '../lib/session';
import {
  buildCreateBody,
  buildUpdateBody,
  formFields,
  initialValues,
  validateValues,
  type FormValue,
  type FormValues,
} from '../lib/openapi-model/form.js';
import { mapError, type MappedError } from '../lib/openapi-model/errors.js';
import { conflictRows, displayValue, keepMine, takeTheirs } from '../lib/openapi-model/conflict.js';
import type { Endpoint, ResourceModel } from '../lib/openapi-model/types.js';
import { FieldControl } from './FieldControl';
import { call } from './call';

export interface ResourceFormProps {
  resource: ResourceModel;
  mode: 'create' | 'update' | 'verb';
  endpoint: Endpoint;
  /** Path params of the endpoint (and context ids, for reference pickers). */
  params: Record<string, string>;
  /** Update: the resource as read; a custom method on a resource: the resource (its etag). */
  original?: Record<string, unknown>;
  submitLabel: string;
  onDone: (result: unknown) => void;
  onCancel?: () => void;
}

/** How long typing pauses before the server is asked (`validate_only`). */
const LIVE_VALIDATION_MS = 500;

export function ResourceForm({ resource, mode, endpoint, params, original, submitLabel, onDone, onCancel }: ResourceFormProps) {
  const api = useApi();
  const fields = useMemo(() => formFields(endpoint.requestSchema, { mode, resource }), [endpoint, mode, resource]);
  const paths = useMemo(() => collectPaths(fields), [fields]);
  const [base, setBase] = useState<Record<string, unknown>>(original ?? {});
  const [etag, setEtag] = useState<string | undefined>(original?.etag as string | undefined);
  const [values, setValuesState] = useState<FormValues>(() => initialValues(fields, mode === 'update' ? original : undefined));
  // The latest values, also between a keystroke and its render: a submit right after typing sends what was typed.
  const latest = useRef(values);
  const setValues = (next: FormValues | ((v: FormValues) => FormValues)) => {
    latest.current = typeof next === 'function' ? next(latest.current) : next;
    setValuesState(latest.current);
  };
  const [touched, setTouched] = useState<Set<string>>(new Set());
  const [clientErrors, setClientErrors] = useState<Record<string, string>>({});
  const [serverErrors, setServerErrors] = useState<Record<string, string>>({});
  const [general, setGeneral] = useState<MappedError | undefined>();
  const [conflict, setConflict] = useState<Record<string, unknown> | undefined>();
  const [submitting, setSubmitting] = useState(false);
  const formRef = useRef<HTMLFormElement>(null);

  const build = (v: FormValues, from: Record<string, unknown>) => (mode === 'update' ? buildUpdateBody(fields, v, from) : buildCreateBody(fields, v));

  // Live validation by the server, for the fields the person has touched.
  useEffect(() => {
    if (!endpoint.validateOnly || touched.size === 0) return;
    const local = validateValues(fields, values, mode);
    const built = build(values, base);
    if (Object.keys(built.invalid).length > 0 || (mode === 'update' && built.updateMask.length === 0)) return;
    const controller = new AbortController();
    const timer = setTimeout(() => {
      call(api, endpoint, {
        params,
        body: built.body,
        query: { validate_only: true, ...(mode === 'update' && endpoint.query.includes('update_mask') && { update_mask: built.updateMask.join(',') }) },
        signal: controller.signal,
      })
        .then(() => setServerErrors({}))
        .catch((err: unknown) => {
          if (controller.signal.aborted) return;
          const mapped = mapError(err, paths);
          // Only a field's own verdict is shown while typing; other failures wait for the submit.
          if (mapped.status === 'INVALID_ARGUMENT' || mapped.status === 'ALREADY_EXISTS') {
            setServerErrors(Object.fromEntries(Object.entries(mapped.fieldErrors).filter(([p]) => touched.has(p.split('.')[0]!) && !local[p])));
          }
        });
    }, LIVE_VALIDATION_MS);
    return () => {
      clearTimeout(timer);
      controller.abort();
    };
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [values, touched]);

  const setValue = (name: string, value: FormValue) => {
    setValues((v) => ({ ...v, [name]: value }));
    setTouched((t) => (t.has(name) ? t : new Set(t).add(name)));
    setServerErrors((e) => (e[name] ? { ...e, [name]: '' } : e));
    if (clientErrors[name]) setClientErrors((e) => ({ ...e, [name]: '' }));
  };

  const focusFirstError = (errors: Record<string, string>) => {
    const first = paths.find((p) => errors[p]);
    if (!first) return;
    const el = formRef.current?.querySelector<HTMLElement>(`[data-field="${CSS.escape(first)}"]`);
    (el?.matches('input,textarea,select,button') ? el : el?.querySelector<HTMLElement>('input,textarea,select,button'))?.focus();
  };

  async function submit(v: FormValues, from: Record<string, unknown>, withEtag: string | undefined) {
    setGeneral(undefined);
    const local = validateValues(fields, v, mode);
    const built = build(v, from);
    const errors = { ...local, ...built.invalid };
    if (Object.keys(errors).length > 0) {
      setClientErrors(errors);
      focusFirstError(errors);
      return;
    }
    if (mode === 'update' && built.updateMask.length === 0) {
      setGeneral({ status: 'OK', code: 200, message: '', fieldErrors: {}, otherViolations: [], summary: 'Nothing changed.' });
      return;
    }
    setSubmitting(true);
    try {
      const result = await call(api, endpoint, {
        params,
        body: built.body,
        ...(endpoint.ifMatch && withEtag && { ifMatch: withEtag }),
        ...(mode === 'update' && endpoint.query.includes('update_mask') && { query: { update_mask: built.updateMask.join(',') } }),
      });
      setConflict(undefined);
      onDone(result);
    } catch (err) {
      const mapped = mapError(err, paths);
      if (mapped.status === 'ABORTED' && mapped.current) {
        setConflict(mapped.current);
      } else {
        setServerErrors(mapped.fieldErrors);
        const explained = mapped.status === 'INVALID_ARGUMENT' && Object.keys(mapped.fieldErrors).length > 0 && mapped.otherViolations.length === 0;
        if (!explained) setGeneral(mapped);
        focusFirstError(mapped.fieldErrors);
      }
    } finally {
      setSubmitting(false);
    }
  }

  const onSubmit = (event: FormEvent) => {
    event.preventDefault();
    void submit(latest.current, base, etag);
  };

  const errors: Record<string, string | undefined> = { ...serverErrors, ...clientErrors };
  for (const key of Object.keys(errors)) if (!errors[key]) delete errors[key];
  const ctxParams = params;

  return (
    <form ref={formRef} onSubmit={onSubmit} noValidate aria-busy={submitting}>
      <Stack gap="md">
        {conflict && (
          <ConflictPanel
            fields={fields}
            base={base}
            yours={values}
            current={conflict}
            mode={mode}
            onKeepMine={() => {
              const mine = latest.current;
              const kept = mode === 'update' ? keepMine(fields, base, mine, conflict) : { values: mine, original: conflict, etag: conflict.etag as string | undefined };
              setValues(kept.values);
              setBase(kept.original);
              setEtag(kept.etag);
              setConflict(undefined);
              void submit(kept.values, kept.original, kept.etag);
            }}
            onTakeTheirs={() => {
              const taken = takeTheirs(fields, conflict);
              if (mode === 'update') setValues(taken.values);
              setBase(taken.original);
              setEtag(taken.etag);
              setConflict(undefined);
              setTouched(new Set());
            }}
          />
        )}
        {general && (
          <Alert color={general.status === 'OK' ? 'blue' : 'red'} role={general.status === 'OK' ? 'status' : 'alert'} title={general.status === 'OK' ? undefined : 'Not saved'}>
            {general.summary}
          </Alert>
        )}
        {fields.length === 0 && mode === 'verb' && <Text>This action takes no input.</Text>}
        {fields.map((field) => (
          <FieldControl
            key={field.path}
            field={field}
            value={values[field.name] ?? null}
            onChange={(v) => setValue(field.name, v)}
            onBlur={() => setTouched((t) => (t.has(field.name) ? t : new Set(t).add(field.name)))}
            errors={errors}
            params={ctxParams}
            disabled={submitting}
          />
        ))}
        <Group>
          <Button type="submit" loading={submitting}>
            {submitLabel}
          </Button>
          {onCancel && (
            <Button variant="default" onClick={onCancel} disabled={submitting}>
              Cancel
            </Button>
          )}
        </Group>
      </Stack>
    </form>
  );
}

function collectPaths(fields: ReturnType<typeof formFields>): string[] {
  return fields.flatMap((f) => [f.path, ...(f.fields ? collectPaths(f.fields) : [])]);
}

interface ConflictPanelProps {
  fields: ReturnType<typeof formFields>;
  base: Record<string, unknown>;
  yours: FormValues;
  current: Record<string, unknown>;
  mode: ResourceFormProps['mode'];
  onKeepMine: () => void;
  onTakeTheirs: () => void;
}

/** What someone else changed meanwhile, beside what the person changed, and the two ways out. */
function ConflictPanel({ fields, base, yours, current, mode, onKeepMine, onTakeTheirs }: ConflictPanelProps) {
  const rows = mode === 'update' ? conflictRows(fields, base, yours, current) : [];
  const headingRef = useRef<HTMLHeadingElement>(null);
  useEffect(() => headingRef.current?.focus(), []);
  return (
    <Alert color="orange" role="alert" aria-labelledby="conflict-title">
      <Title order={2} size="h4" id="conflict-title" ref={headingRef} tabIndex={-1}>
        Someone else changed this while you were editing
      </Title>
      {rows.length > 0 ? (
        <Table mt="sm" aria-label="What changed" withTableBorder>
          <Table.Thead>
            <Table.Tr>
              <Table.Th scope="col">Field</Table.Th>
              <Table.Th scope="col">Yours</Table.Th>
              <Table.Th scope="col">Now saved</Table.Th>
            </Table.Tr>
          </Table.Thead>
          <Table.Tbody>
            {rows.map((row) => (
              <Table.Tr key={row.path} data-clash={row.clash || undefined}>
                <Table.Th scope="row">
                  {row.label}
                  {row.clash ? ' (both changed)' : ''}
                </Table.Th>
                <Table.Td>{displayValue(row.yours)}</Table.Td>
                <Table.Td>{displayValue(row.theirs)}</Table.Td>
              </Table.Tr>
            ))}
          </Table.Tbody>
        </Table>
      ) : (
        <Text size="sm" mt="xs">
          The saved version is newer than the one you started from.
        </Text>
      )}
      <Group mt="md">
        <Button onClick={onKeepMine}>{mode === 'update' ? 'Keep my changes' : 'Do it on the new version'}</Button>
        <Button variant="default" onClick={onTakeTheirs}>
          {mode === 'update' ? 'Take the saved version' : 'Cancel'}
        </Button>
      </Group>
    </Alert>
  );
}
