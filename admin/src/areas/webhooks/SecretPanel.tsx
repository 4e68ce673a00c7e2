/** A signing secret the API answers once (Create, `:rotate_secret`): shown here, with a copy button, until dismissed. */
import { Alert, Button, Code, CopyButton, Group, Stack, Text } from '@mantine/core';
import type { ReactNode } from 'react';

export function SecretPanel({ secret, title, children, onDone }: { secret: string; title: string; children?: ReactNode; onDone: () => void }) {
  return (
    <Alert color="yellow" title={title} role="status">
      <Stack gap="xs">
        <Text size="sm" fw={600}>
          Copy the signing secret now: you will not see it again. Keep it with your receiver to verify signatures.
        </Text>
        {children}
        <Group gap="xs" wrap="nowrap" align="center">
          <Code data-testid="webhook-secret" style={{ wordBreak: 'break-all' }}>
            {secret}
          </Code>
          <CopyButton value={secret}>
            {({ copied, copy }) => (
              <Button size="compact-sm" variant="default" onClick={copy} aria-label="Copy the secret">
                {copied ? 'Copied' : 'Copy'}
              </Button>
            )}
          </CopyButton>
        </Group>
        <Group>
          <Button size="xs" variant="default" onClick={onDone}>
            I have stored it
          </Button>
        </Group>
      </Stack>
    </Alert>
  );
}
