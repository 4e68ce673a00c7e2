/** Customer screens' data: the website in the URL, its rights, groups, attributes and sections. */
import { useQuery } from '@tanstack/react-query';
import { paginate, type Schemas } from '@siteplatform/sdk';
import { useApi } from '../../lib/session';
import { useRights } from '../../lib/rights';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';

export type Customer = Schemas['Customer'];
export type CustomerGroup = Schemas['CustomerGroup'];
export type Attribute = Schemas['CustomerAttribute'];
export type Section = Schemas['CustomerAttributeGroup'];

export function useCustomerSite() {
  const { websiteId, entry } = useCurrentWebsite();
  const rights = useRights(entry?.account.id, websiteId);
  return { websiteId, rights, canWrite: rights?.canWrite('website.customers') ?? false };
}

export const customerKeys = {
  all: (w: string) => ['customers', w] as const,
  list: (w: string) => ['customers', w, 'list'] as const,
  one: (w: string, id: string) => ['customers', w, 'one', id] as const,
  groups: (w: string) => ['customers', w, 'groups'] as const,
  attributes: (w: string) => ['customers', w, 'attributes'] as const,
  sections: (w: string) => ['customers', w, 'sections'] as const,
};

/** Every group of the website (a website has few; the list screens' filters and the customer page choose among them). */
export function useGroups(websiteId: string) {
  const api = useApi();
  return useQuery({
    queryKey: customerKeys.groups(websiteId),
    queryFn: async () => {
      const all: CustomerGroup[] = [];
      for await (const g of paginate(api, '/tenant-api/v1/websites/{website_id}/customer_groups', { path: { website_id: websiteId }, query: { order_by: 'display_name' } })) all.push(g);
      return all;
    },
  });
}

/** Every attribute (at most 100 per website), in their order. */
export function useAttributes(websiteId: string) {
  const api = useApi();
  return useQuery({
    queryKey: customerKeys.attributes(websiteId),
    queryFn: async () => {
      const all: Attribute[] = [];
      for await (const a of paginate(api, '/tenant-api/v1/websites/{website_id}/customer_attributes', { path: { website_id: websiteId } })) all.push(a);
      return all;
    },
  });
}

/** Every attribute section (at most 20 per website), in their order. */
export function useSections(websiteId: string) {
  const api = useApi();
  return useQuery({
    queryKey: customerKeys.sections(websiteId),
    queryFn: async () => {
      const all: Section[] = [];
      for await (const s of paginate(api, '/tenant-api/v1/websites/{website_id}/customer_attribute_groups', { path: { website_id: websiteId } })) all.push(s);
      return all;
    },
  });
}

/** SPEC 8's limits of the customer area, shown on the forms. */
export const LIMITS = {
  sections: 20,
  attributes: 100,
  name: 255,
  description: 2000,
  textMax: 1024,
  textareaMax: 8192,
  options: 100,
  rule: 2000,
  tag: 64,
} as const;

export const ATTRIBUTE_TYPES = [
  { value: 'TEXT', label: 'Text (one line)' },
  { value: 'TEXTAREA', label: 'Text (several lines)' },
  { value: 'NUMBER', label: 'Number' },
  { value: 'BOOLEAN', label: 'Yes / no' },
  { value: 'DATE', label: 'Date' },
  { value: 'SELECT', label: 'One of a list' },
  { value: 'MULTISELECT', label: 'Several of a list' },
];

export { afterIdOf } from './rule';
