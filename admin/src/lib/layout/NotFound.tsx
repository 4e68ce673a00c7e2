import { Container, Text, Title } from '@mantine/core';
import { usePageTitle } from './title';
import { AnchorLink } from './links';

export function NotFoundScreen() {
  return (
    <Container component="main" size="sm" py="xl">
      <NotFoundContent />
    </Container>
  );
}

export function NotFoundContent() {
  usePageTitle('Not found');
  return (
    <>
      <Title order={1}>Not found</Title>
      <Text mt="md">There is nothing at this address.</Text>
      <AnchorLink to="/" mt="md" display="inline-block">
        Go to the start
      </AnchorLink>
    </>
  );
}
