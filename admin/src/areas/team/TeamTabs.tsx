import { Group } from '@mantine/core';
import { useParams } from '@tanstack/react-router';
import { AnchorLink } from '../../lib/layout/links';

/** The team screens' sub-navigation (members, invitations, roles). */
export function TeamTabs({ current }: { current: 'members' | 'invitations' | 'account_roles' }) {
  const { accountId } = useParams({ from: '/signed-in/a/$accountId' });
  const tabs = [
    ['members', 'Members'],
    ['invitations', 'Invitations'],
    ['account_roles', 'Roles'],
  ] as const;
  return (
    <Group component="nav" aria-label="Team" gap="md">
      {tabs.map(([to, label]) => (
        <AnchorLink key={to} to={`/a/$accountId/r/${to}`} params={{ accountId }} fw={current === to ? 700 : 400} aria-current={current === to ? 'page' : undefined} underline={current === to ? 'always' : 'hover'}>
          {label}
        </AnchorLink>
      ))}
    </Group>
  );
}
