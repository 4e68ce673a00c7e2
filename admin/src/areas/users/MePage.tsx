import { Container, Title } from '@mantine/core';
import { usePageTitle } from '../../lib/layout/title';
import { Shell } from '../../lib/layout/Shell';

export function MePage() {
  usePageTitle('Profile and security');
  return (
    <Shell>
      <Container size="sm" py="md">
      <Title order={1}>Profile and security</Title>
    </Container>
    </Shell>
  );
}
