/** Links between the editorial screens (plan, backlog, calendar). */
import { Group } from '@mantine/core';
import { AnchorLink } from '../../lib/layout/links';
import { useCurrentWebsite } from '../../lib/layout/WebsiteShell';

export function EditorialTabs({ current }: { current: 'plan' | 'backlog' | 'calendar' }) {
  const { websiteId } = useCurrentWebsite();
  const style = (mine: boolean) => ({ fontWeight: mine ? 700 : 400, textDecoration: mine ? 'underline' : undefined });
  return (
    <Group component="nav" aria-label="Editorial" gap="lg">
      <AnchorLink to="/w/$websiteId/r/editorial_calendar_entries" params={{ websiteId }} aria-current={current === 'calendar' ? 'page' : undefined} style={style(current === 'calendar')}>
        Calendar
      </AnchorLink>
      <AnchorLink to="/w/$websiteId/r/editorial_backlog_items" params={{ websiteId }} aria-current={current === 'backlog' ? 'page' : undefined} style={style(current === 'backlog')}>
        Backlog
      </AnchorLink>
      <AnchorLink to="/w/$websiteId/r/editorial_plan" params={{ websiteId }} aria-current={current === 'plan' ? 'page' : undefined} style={style(current === 'plan')}>
        Plan
      </AnchorLink>
    </Group>
  );
}
