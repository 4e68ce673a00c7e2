/**
 * The theme variables the default design (src/site/design.css.ts) is built on: every colour, font,
 * size and width a visitor sees comes from one of them. The theme resource answers this catalogue
 * (`variable_definitions`, `presets`) so an admin can show each as a control of its type.
 */
export type ThemeVariableType = 'color' | 'font' | 'length';

export interface ThemeVariableDefinition {
  name: string;
  type: ThemeVariableType;
  group: 'colors' | 'dark_colors' | 'typography' | 'layout';
  default: string;
  description: string;
  /** For `font`: the stacks the design offers (system fonts only: nothing is downloaded at run time). Other values are kept as sent. */
  options?: ReadonlyArray<{ value: string; label: string }>;
}

/** Font stacks of fonts installed on the visitor's system (modernfontstacks.com): no download, no layout shift. */
export const FONT_STACKS = [
  { value: 'system-ui, -apple-system, "Segoe UI", Roboto, "Helvetica Neue", Arial, sans-serif', label: 'System sans-serif' },
  { value: 'Seravek, "Gill Sans Nova", Ubuntu, Calibri, "DejaVu Sans", source-sans-pro, sans-serif', label: 'Humanist sans-serif' },
  { value: 'Avenir, Montserrat, Corbel, "URW Gothic", source-sans-pro, sans-serif', label: 'Geometric sans-serif' },
  { value: 'Charter, "Bitstream Charter", "Sitka Text", Cambria, serif', label: 'Transitional serif' },
  { value: '"Iowan Old Style", "Palatino Linotype", "URW Palladio L", P052, serif', label: 'Old-style serif' },
  { value: 'ui-monospace, "Cascadia Code", "Source Code Pro", Menlo, Consolas, "DejaVu Sans Mono", monospace', label: 'Monospace' },
] as const;

const [SANS, , , TRANSITIONAL, OLD_STYLE] = FONT_STACKS.map((f) => f.value);

const color = (name: string, group: 'colors' | 'dark_colors', value: string, description: string): ThemeVariableDefinition => ({ name, type: 'color', group, default: value, description });

export const THEME_VARIABLES: readonly ThemeVariableDefinition[] = [
  color('--color-primary', 'colors', '#1f6feb', 'Accent: buttons, the header’s rule, active menu entries, tags.'),
  color('--color-on-primary', 'colors', '#ffffff', 'Text on the accent colour (buttons).'),
  color('--color-secondary', 'colors', '#59636e', 'Quieter text: dates, bylines, hints, captions.'),
  color('--color-background', 'colors', '#ffffff', 'Page background.'),
  color('--color-surface', 'colors', '#f6f8fa', 'Background of cards, the footer and form fields.'),
  color('--color-text', 'colors', '#1f2328', 'Body text and headings.'),
  color('--color-link', 'colors', '#0969da', 'Links in text.'),
  color('--color-border', 'colors', '#d1d9e0', 'Rules and borders of cards and fields.'),
  color('--color-primary-dark', 'dark_colors', '#4493f8', 'Accent when the visitor prefers a dark colour scheme.'),
  color('--color-on-primary-dark', 'dark_colors', '#0d1117', 'Text on the accent colour, dark scheme.'),
  color('--color-secondary-dark', 'dark_colors', '#9198a1', 'Quieter text, dark scheme.'),
  color('--color-background-dark', 'dark_colors', '#0d1117', 'Page background, dark scheme.'),
  color('--color-surface-dark', 'dark_colors', '#161b22', 'Cards, footer and fields, dark scheme.'),
  color('--color-text-dark', 'dark_colors', '#e6edf3', 'Body text, dark scheme.'),
  color('--color-link-dark', 'dark_colors', '#4493f8', 'Links, dark scheme.'),
  color('--color-border-dark', 'dark_colors', '#3d444d', 'Rules and borders, dark scheme.'),
  { name: '--font-body', type: 'font', group: 'typography', default: SANS, description: 'Font stack of body text.', options: FONT_STACKS },
  { name: '--font-heading', type: 'font', group: 'typography', default: SANS, description: 'Font stack of headings and the site name.', options: FONT_STACKS },
  { name: '--font-size-base', type: 'length', group: 'typography', default: '1.0625rem', description: 'Size of body text; headings scale from it.' },
  { name: '--radius', type: 'length', group: 'layout', default: '6px', description: 'Corner radius of cards, buttons, fields and images.' },
  { name: '--space', type: 'length', group: 'layout', default: '1rem', description: 'Base spacing unit; gaps and paddings are multiples of it.' },
  { name: '--content-width', type: 'length', group: 'layout', default: '72rem', description: 'Widest the header, footer and card grids grow.' },
  { name: '--measure', type: 'length', group: 'layout', default: '42rem', description: 'Width of a column of text (pages, posts): a readable line length.' },
];

/** name → default of every known variable: what a new website's theme starts with. */
export const DEFAULT_VARIABLES: Readonly<Record<string, string>> = Object.fromEntries(THEME_VARIABLES.map((v) => [v.name, v.default]));

export interface ThemePreset {
  id: string;
  display_name: string;
  description: string;
  /** Variables to write over the defaults (send `variables` with these merged into the current ones). */
  variables: Readonly<Record<string, string>>;
}

/** Starting points an admin offers; applying one is an Update of `variables`. */
export const THEME_PRESETS: readonly ThemePreset[] = [
  { id: 'business', display_name: 'Business', description: 'Calm blue accent, system sans-serif, wide layout.', variables: {} },
  {
    id: 'magazine',
    display_name: 'Magazine',
    description: 'Red accent, serif headlines over sans-serif text, square corners.',
    variables: {
      '--color-primary': '#b42318', '--color-link': '#b42318', '--color-primary-dark': '#ff7b72', '--color-link-dark': '#ff7b72',
      '--font-heading': TRANSITIONAL, '--radius': '2px', '--content-width': '76rem',
    },
  },
  {
    id: 'personal',
    display_name: 'Personal blog',
    description: 'Green accent on warm paper, old-style serif throughout, a narrow column.',
    variables: {
      '--color-primary': '#116149', '--color-link': '#116149', '--color-background': '#fffdf7', '--color-surface': '#f6f1e7', '--color-text': '#2b2620', '--color-secondary': '#5c5346',
      '--color-primary-dark': '#3fb950', '--color-link-dark': '#3fb950',
      '--font-body': OLD_STYLE, '--font-heading': OLD_STYLE, '--font-size-base': '1.125rem', '--radius': '12px', '--content-width': '60rem', '--measure': '38rem',
    },
  },
];
