/**
 * The rendered site in a frame, at the website's real host and the chosen view's path, reloaded
 * after each save (the site follows a write shortly afterwards, so once more a moment later).
 */
import { useEffect, useState } from 'react';
import { Anchor, Box, Group, Text } from '@mantine/core';

export function PreviewPane({ url, version, label, height = 720 }: { url: string | undefined; version: unknown; label: string; height?: number }) {
  const [reload, setReload] = useState(0);
  useEffect(() => {
    setReload((r) => r + 1);
    const later = setTimeout(() => setReload((r) => r + 1), 1500);
    return () => clearTimeout(later);
  }, [version]);
  if (!url) return <Text>The preview shows once the website has an address.</Text>;
  return (
    <Box>
      <Group justify="space-between" mb={6}>
        <Text size="sm">
          Preview of <Anchor href={url} target="_blank" rel="noreferrer">{url}</Anchor>
        </Text>
      </Group>
      <iframe
        key={reload}
        src={url}
        title={label}
        style={{ width: '100%', height, border: '1px solid var(--mantine-color-gray-4)', borderRadius: 4, background: 'white' }}
      />
    </Box>
  );
}
