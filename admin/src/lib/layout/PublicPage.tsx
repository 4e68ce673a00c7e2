import type { ReactNode } from 'react';
import { Anchor, Box, Container, Group, Paper, Text, Title } from '@mantine/core';
import { usePageTitle } from './title';

/**
 * The frame of the screens before signing in (sign-in, sign-up, mailed links): one card, and a
 * footer with the API references (the admin is built on them) and the health check.
 */
export function PublicPage({ title, children, width = 420 }: { title: string; children: ReactNode; width?: number }) {
  usePageTitle(title);
  return (
    <Box mih="100vh" bg="gray.0" style={{ display: 'flex', flexDirection: 'column' }}>
      <Container component="main" size={width} py={48} w="100%" style={{ flex: 1 }}>
        <Text fw={700} c="indigo.9" mb="md">
          Site platform
        </Text>
        <Paper withBorder shadow="sm" p="xl" radius="md">
          <Title order={1} size="h2" mb="lg">
            {title}
          </Title>
          {children}
        </Paper>
      </Container>
      <Box component="footer" py="md" px="md" bg="white" style={{ borderTop: '1px solid var(--mantine-color-gray-3)' }}>
        <Group justify="center" gap="lg" wrap="wrap">
          <Text size="sm" c="gray.8">
            The API this admin is built on:
          </Text>
          <Anchor href="/tenant-api/v1/docs" size="sm">
            Tenant API reference
          </Anchor>
          <Anchor href="/tenant-api/v1/openapi.json" size="sm">
            Tenant API (OpenAPI)
          </Anchor>
          <Anchor href="/site-api/v1/docs" size="sm">
            Sign-up API reference
          </Anchor>
          <Anchor href="/site-api/v1/openapi.json" size="sm">
            Sign-up API (OpenAPI)
          </Anchor>
          <Anchor href="/engine-api/v1/docs" size="sm">
            Engine API reference
          </Anchor>
          <Anchor href="/engine-api/v1/openapi.json" size="sm">
            Engine API (OpenAPI)
          </Anchor>
          <Anchor href="/healthz" size="sm">
            Health check
          </Anchor>
        </Group>
      </Box>
    </Box>
  );
}
