/** How a search result would show the page: title, address and description, cut where search engines cut them. */
import { Box, Text } from '@mantine/core';

const cut = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1).trimEnd()}…` : s);

export function SearchPreview({ title, url, description }: { title: string; url: string | undefined; description: string }) {
  return (
    <Box
      role="group"
      aria-label="Search result preview"
      p="sm"
      style={{ border: '1px solid var(--mantine-color-gray-4)', borderRadius: 8, maxWidth: 600, background: 'var(--mantine-color-white)' }}
    >
      <Text size="xs" style={{ color: '#202124' }} truncate>
        {url ?? '(the site address appears once the website is provisioned)'}
      </Text>
      <Text size="lg" style={{ color: '#1a0dab', lineHeight: 1.3 }}>
        {cut(title || '(no title)', 60)}
      </Text>
      <Text size="sm" style={{ color: '#4d5156' }}>
        {description ? cut(description, 160) : 'No description: search engines pick text from the page.'}
      </Text>
    </Box>
  );
}

/** The length hint under an SEO field. */
export const lengthHint = (value: unknown, ideal: number) => {
  const n = typeof value === 'string' ? value.length : 0;
  return `${n} characters${n > ideal ? ` — search results show about ${ideal}` : ''}`;
};
