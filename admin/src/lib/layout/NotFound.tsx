import { Container, Text, Title } from '@mantine/core';
import { usePageTitle } from './title';
import { AnchorLink } from './links';

export function NotFoundScreen() {
  usePageTitle('Not found');
  return (
    <Container component="main" size="sm" py="xl">
      <Title order={1}>Not found</Title>
      <Text mt="md">There is nothing at this address.</Text>
      <AnchorLink to="/" mt="md" display="inline-block">
        Go to the start
      </AnchorLink>
    </Container>
  );
}
