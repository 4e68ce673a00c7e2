/** The event-type catalogue as picker options, and the webhooks' state labels. */
import { useQuery } from '@tanstack/react-query';
import { data, type Schemas } from '../../lib/api';
import { useApi } from '../../lib/session';

export type Webhook = Schemas['Webhook'];
export type Delivery = Schemas['WebhookDelivery'];
type EventType = Schemas['WebhookEventType'];

/** Every type of the catalogue (a platform list of a few hundred at most: read through all pages once). */
export function useEventTypes() {
  const api = useApi();
  return useQuery({
    queryKey: ['webhook_event_types'],
    staleTime: Infinity,
    queryFn: async () => {
      const all: EventType[] = [];
      let token: string | undefined;
      do {
        const page = await data(api.GET('/tenant-api/v1/webhook_event_types', { params: { query: { page_size: 100, ...(token && { page_token: token }) } } }));
        all.push(...(page.webhook_event_types ?? []));
        token = page.next_page_token || undefined;
      } while (token);
      return all;
    },
  });
}

/** Grouped options by collection: the collection's wildcard first, then its types; `*` on top. */
export function eventTypeOptions(types: EventType[] | undefined) {
  const groups = new Map<string, { value: string; label: string }[]>();
  for (const t of types ?? []) {
    const group = t.collection || 'other';
    if (!groups.has(group)) groups.set(group, t.wildcard ? [{ value: t.wildcard, label: `${t.wildcard} (every ${group} event)` }] : []);
    groups.get(group)!.push({ value: t.id, label: t.id });
  }
  return [
    { group: 'Everything', items: [{ value: '*', label: '* (every event)' }] },
    ...[...groups.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([group, items]) => ({ group, items })),
  ];
}

export const STATE: Record<NonNullable<Webhook['state']>, { label: string; color: string }> = {
  ACTIVE: { label: 'Active', color: 'teal.9' },
  PAUSED: { label: 'Paused', color: 'gray.8' },
  DISABLED: { label: 'Disabled', color: 'red.9' },
};

export const DELIVERY_STATE: Record<NonNullable<Delivery['state']>, { label: string; color: string }> = {
  PENDING: { label: 'Pending', color: '#a63c06' },
  DELIVERING: { label: 'Delivering', color: 'blue.9' },
  SUCCEEDED: { label: 'Succeeded', color: 'teal.9' },
  FAILED: { label: 'Failed', color: 'red.9' },
};
