import { createTheme } from '@mantine/core';

// Darker primary shades than Mantine's defaults keep text on filled buttons and links at WCAG AA contrast.
export const theme = createTheme({
  primaryColor: 'indigo',
  primaryShade: 8,
  focusRing: 'always',
  defaultRadius: 'sm',
});
