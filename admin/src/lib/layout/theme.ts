import { Alert, createTheme, type CSSVariablesResolver } from '@mantine/core';

// Darker shades than Mantine's defaults keep text at WCAG AA contrast (4.5:1) on white and on the
// light backgrounds of alerts: the primary colour's filled shade, "dimmed" text (descriptions,
// hints), alert titles.
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  focusRing: 'always',
  defaultRadius: 'sm',
  components: {
    Alert: Alert.extend({ styles: { title: { color: 'var(--mantine-color-text)' } } }),
  },
});

export const cssVariablesResolver: CSSVariablesResolver = () => ({
  variables: {},
  light: {
    '--mantine-color-dimmed': 'var(--mantine-color-gray-7)',
    '--mantine-color-placeholder': 'var(--mantine-color-gray-7)',
    '--mantine-color-error': 'var(--mantine-color-red-9)',
    // Text of the primary colour's light variant (the active navigation entry, light badges and
    // buttons): shade 6 falls below 4.5:1 on its own hover background.
    '--mantine-color-indigo-light-color': 'var(--mantine-color-indigo-9)',
  },
  dark: {},
});
