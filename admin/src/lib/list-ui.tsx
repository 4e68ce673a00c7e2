/** Pieces of purpose-built list screens: loading, error and empty states, paging, list search in the URL. */
import { Alert, Button, Group, Loader, Text } from '@mantine/core';
import { useNavigate, useSearch } from '@tanstack/react-router';
import type { ReactNode } from 'react';
import { ApiErrorAlert } from './errors';

/** A list's loading, error and empty states, so a screen is never blank; null once there is something to show. */
export function ListState({ query, isEmpty, what, empty }: { query: { isPending: boolean; error: unknown }; isEmpty: boolean; what: string; empty: ReactNode }) {
  if (query.isPending) return <Loader role="status" aria-label={`Loading ${what}`} />;
  if (query.error) return <ApiErrorAlert error={query.error} title={`The ${what} could not be loaded`} />;
  if (isEmpty)
    return (
      <Alert color="gray" title={`No ${what}`}>
        {empty}
      </Alert>
    );
  return null;
}

/** Next page and back to the first (page tokens only go forward), with the filtered total. */
export function Pager({ next, current, total, noun, onPage }: { next?: string; current?: string; total?: number; noun: string; onPage: (token: string | undefined) => void }) {
  return (
    <Group justify="space-between" mt="sm">
      <Text size="sm">{total !== undefined ? `${total} ${noun}` : ''}</Text>
      <Group gap="xs">
        {current && (
          <Button variant="default" size="xs" onClick={() => onPage(undefined)}>
            First page
          </Button>
        )}
        {next && (
          <Button variant="default" size="xs" onClick={() => onPage(next)}>
            Next page
          </Button>
        )}
      </Group>
    </Group>
  );
}

/** The list's search parameters and a setter; a change other than the page token starts at the first page again. */
export function useUrlSearch<T extends Record<string, string | undefined>>(): [T, (patch: Partial<T>) => void] {
  const search = useSearch({ strict: false }) as unknown as T;
  const navigate = useNavigate();
  const set = (patch: Partial<T>) =>
    void navigate({
      to: '.',
      search: ((prev: Record<string, unknown>) => {
        const next: Record<string, unknown> = { ...prev, ...patch };
        if (!('page_token' in patch)) delete next.page_token;
        for (const k of Object.keys(next)) if (next[k] === undefined || next[k] === '') delete next[k];
        return next;
      }) as never,
      replace: true,
    });
  return [search, set];
}

/** validateSearch of a list route: the listed keys' non-empty string values. */
export const stringSearchOf =
  <K extends string>(...keys: K[]) =>
  (search: Record<string, unknown>): Partial<Record<K, string>> =>
    Object.fromEntries(keys.filter((k) => typeof search[k] === 'string' && search[k] !== '').map((k) => [k, search[k] as string])) as Partial<Record<K, string>>;

export const formatDateTime = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
export const formatDate = (iso: string | undefined) => (iso ? new Date(iso).toLocaleDateString() : '—');
