import type { ReactNode } from 'react';
import { AppShell, Burger, Group, ScrollArea, Skeleton } from '@mantine/core';
import { useDisclosure } from '@mantine/hooks';
import { WebsiteSwitcher } from './WebsiteSwitcher';
import { UserMenu } from './UserMenu';
import { AnchorLink } from './links';

/** The signed-in frame: header (switcher, user menu), the areas' navigation, the screen. */
export function Shell({ navigation, children, websiteId }: { navigation?: ReactNode; children: ReactNode; websiteId?: string }) {
  const [opened, { toggle, close }] = useDisclosure();
  return (
    <AppShell header={{ height: 60 }} navbar={navigation ? { width: 260, breakpoint: 'sm', collapsed: { mobile: !opened } } : undefined} padding="md">
      <AppShell.Header>
        <Group h="100%" px="md" justify="space-between" wrap="nowrap">
          <Group wrap="nowrap">
            {navigation && <Burger opened={opened} onClick={toggle} hiddenFrom="sm" size="sm" aria-label="Show the navigation" />}
            <AnchorLink to="/" fw={700} c="indigo.9" underline="never">
              Site platform
            </AnchorLink>
            <WebsiteSwitcher websiteId={websiteId} />
          </Group>
          <UserMenu />
        </Group>
      </AppShell.Header>
      {navigation && (
        <AppShell.Navbar p="xs">
          <ScrollArea onClick={close}>{navigation}</ScrollArea>
        </AppShell.Navbar>
      )}
      <AppShell.Main>{children}</AppShell.Main>
    </AppShell>
  );
}

export function NavSkeleton() {
  return (
    <>
      {Array.from({ length: 8 }, (_, i) => (
        <Skeleton key={i} h={28} mt="sm" animate={false} />
      ))}
    </>
  );
}
