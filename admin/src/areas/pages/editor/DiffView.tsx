/** A readable word diff of one field: removed words struck through, added ones underlined (not by colour alone). */
import { Box, Text } from '@mantine/core';
import { diffParts, fieldText } from './diff-view';

export function DiffView({ before, after, richText, label }: { before: unknown; after: unknown; richText?: boolean; label: string }) {
  const parts = diffParts(fieldText(before, richText), fieldText(after, richText));
  return (
    <Box component="figure" m={0} aria-label={`Differences in ${label}`}>
      <Text component="figcaption" fw={600} size="sm" mb={4}>
        {label}
      </Text>
      <Box
        style={{ whiteSpace: 'pre-wrap', fontSize: 'var(--mantine-font-size-sm)', border: '1px solid var(--mantine-color-gray-4)', borderRadius: 4, padding: 8, maxHeight: 260, overflow: 'auto' }}
      >
        {parts.map((p, i) =>
          p.kind === 'same' ? (
            <span key={i}>{p.text}</span>
          ) : p.kind === 'added' ? (
            <ins key={i} style={{ background: '#d3f9d8', color: '#0b3d17', textDecorationThickness: 2 }}>
              {p.text}
            </ins>
          ) : (
            <del key={i} style={{ background: '#ffe3e3', color: '#5c0b0b' }}>
              {p.text}
            </del>
          ),
        )}
        {parts.length === 0 && <Text size="sm">(empty)</Text>}
      </Box>
    </Box>
  );
}
