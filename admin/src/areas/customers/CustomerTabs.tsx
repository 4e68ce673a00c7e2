import { Group } from '@mantine/core';
import { useParams } from '@tanstack/react-router';
import { AnchorLink } from '../../lib/layout/links';

/** The customer screens' sub-navigation. */
export function CustomerTabs({ current }: { current: 'customers' | 'customer_groups' | 'customer_attributes' | 'customer_attribute_groups' }) {
  const { websiteId } = useParams({ from: '/signed-in/w/$websiteId' });
  const tabs = [
    ['customers', 'Customers'],
    ['customer_groups', 'Groups'],
    ['customer_attributes', 'Attributes'],
    ['customer_attribute_groups', 'Attribute sections'],
  ] as const;
  return (
    <Group component="nav" aria-label="Customers" gap="md">
      {tabs.map(([to, label]) => (
        <AnchorLink key={to} to={`/w/$websiteId/r/${to}`} params={{ websiteId }} fw={current === to ? 700 : 400} aria-current={current === to ? 'page' : undefined} underline={current === to ? 'always' : 'hover'}>
          {label}
        </AnchorLink>
      ))}
    </Group>
  );
}
