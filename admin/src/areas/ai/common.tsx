/** Pieces shared by the AI and billing screens: the account in the URL, paging, run states, models. */
import { Alert, Badge, Loader } from '@mantine/core';
import { useQuery } from '@tanstack/react-query';
import { useNavigate, useParams, useSearch } from '@tanstack/react-router';
import { data, type Schemas } from '@siteplatform/sdk';
import type { ReactNode } from 'react';
import { useApi } from '../../lib/session';
import { ApiErrorAlert } from '../../lib/errors';
import { useRights } from '../../lib/rights';
import { formatMoney } from '../billing/money';

export type Model = Schemas['AiModel'];

export function useAccount() {
  const { accountId } = useParams({ from: '/signed-in/a/$accountId' });
  const rights = useRights(accountId);
  return { accountId, rights, canWrite: rights?.canWrite('ai') ?? false };
}

/** The list screen's search parameters (filters and page token live in the URL: a list view is a link). */
export function useListSearch<T extends Record<string, string | undefined>>(): [T, (patch: Partial<T>, replace?: boolean) => void] {
  const raw: unknown = useSearch({ strict: false });
  const search = raw as T;
  const navigate = useNavigate();
  const set = (patch: Partial<T>, replace = false) =>
    void navigate({
      to: '.',
      search: ((prev: Record<string, unknown>) => {
        const next: Record<string, unknown> = { ...prev, ...patch };
        // A filter change starts again at the first page (a token is tied to its filter).
        if (!('page_token' in patch)) delete next.page_token;
        for (const k of Object.keys(next)) if (next[k] === undefined || next[k] === '') delete next[k];
        return next;
      }) as never,
      replace,
    });
  return [search, set];
}

/** Keeps only string values of the listed keys (validateSearch of the list routes). */
export const stringSearch =
  (...keys: string[]) =>
  (search: Record<string, unknown>): Record<string, string | undefined> =>
    Object.fromEntries(keys.filter((k) => typeof search[k] === 'string' && search[k] !== '').map((k) => [k, search[k] as string]));

// The shared pager of the admin's lists.
export { Pager } from '../../lib/list-ui';

/** Loading, error and empty states of a list, so a screen is never blank. */
export function ListState({ query, empty, isEmpty, what }: { query: { isPending: boolean; error: unknown }; empty: ReactNode; isEmpty: boolean; what: string }) {
  if (query.isPending) return <Loader role="status" aria-label={`Loading ${what}`} />;
  if (query.error) return <ApiErrorAlert error={query.error} title={`The ${what} could not be loaded`} />;
  if (isEmpty)
    return (
      <Alert color="gray" title={`No ${what} yet`}>
        {empty}
      </Alert>
    );
  return null;
}

export const FINAL_STATES = new Set(['SUCCEEDED', 'FAILED', 'CANCELLED', 'EXPIRED']);
const STATE_COLORS: Record<string, string> = {
  QUEUED: 'gray.8',
  RUNNING: 'blue.9',
  SUCCEEDED: 'green.9',
  FAILED: 'red.9',
  CANCELLED: 'gray.8',
  EXPIRED: 'orange.9',
  VALID: 'green.9',
  INVALID: 'red.9',
  UNVERIFIED: 'gray.8',
  AVAILABLE: 'green.9',
  DEPRECATED: 'orange.9',
  DISABLED: 'red.9',
};
export const words = (code: string | undefined) => (code ? code.charAt(0) + code.slice(1).toLowerCase().replace(/_/g, ' ') : '');

export function StateBadge({ state, ...rest }: { state: string | undefined; role?: string; 'aria-live'?: 'polite' }) {
  return (
    // The dot variant keeps the text in the default colour (contrast on striped rows too); the dot carries the colour.
    <Badge color={STATE_COLORS[state ?? ''] ?? 'gray.8'} variant="dot" {...rest}>
      {words(state) || 'Unknown'}
    </Badge>
  );
}

export const dateTime = (iso: string | undefined) => (iso ? new Date(iso).toLocaleString() : '—');
const tokens = new Intl.NumberFormat('en');
export const formatCount = (n: number | undefined) => (n === undefined ? '—' : tokens.format(n));

export function useModels() {
  const api = useApi();
  return useQuery({
    queryKey: ['ai_models'],
    queryFn: () => data(api.GET('/tenant-api/v1/ai_models', { params: { query: { page_size: 100 } } })),
    staleTime: 600_000,
  });
}

/** `GPT-5 — available, $1.25 in / $10 out per million tokens` (what an agent's model choice costs). */
export function modelLabel(m: Model): string {
  const p = m.pricing;
  const price = !m.platform_priced ? 'own key only' : p?.input_per_million || p?.output_per_million ? `${formatMoney(p.input_per_million)} in / ${formatMoney(p.output_per_million)} out per million tokens` : p?.per_image ? `${formatMoney(p.per_image)} per image` : 'price not listed';
  return `${m.display_name ?? m.id} — ${words(m.state).toLowerCase()}, ${price}`;
}
