import { Container, Title } from '@mantine/core';
import { usePageTitle } from '../../lib/layout/title';

export function MePage() {
  usePageTitle('Profile and security');
  return (
    <Container component="main" size="sm" py="xl">
      <Title order={1}>Profile and security</Title>
    </Container>
  );
}
