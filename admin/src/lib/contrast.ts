/**
 * WCAG 2.x contrast of colours as the theme stores them (`#rgb`, `#rrggbb`, `rgb(r, g, b)`), for the
 * theme screen's warnings. https://www.w3.org/TR/WCAG22/#dfn-contrast-ratio
 */
export type Rgb = readonly [number, number, number];

/** The colour of a CSS value this screen can judge; undefined for anything else (names, var(), hsl()…). */
export function parseColor(value: string | undefined): Rgb | undefined {
  if (!value) return undefined;
  const v = value.trim().toLowerCase();
  let m = /^#([0-9a-f]{3})$/.exec(v);
  if (m) return [0, 1, 2].map((i) => parseInt(m![1][i] + m![1][i], 16)) as unknown as Rgb;
  m = /^#([0-9a-f]{6})(?:[0-9a-f]{2})?$/.exec(v);
  if (m) return [0, 2, 4].map((i) => parseInt(m![1].slice(i, i + 2), 16)) as unknown as Rgb;
  m = /^rgba?\(\s*(\d{1,3})\s*[, ]\s*(\d{1,3})\s*[, ]\s*(\d{1,3})\s*(?:[,/]\s*[\d.]+%?\s*)?\)$/.exec(v);
  if (m) {
    const rgb = [m[1], m[2], m[3]].map(Number);
    return rgb.every((c) => c <= 255) ? (rgb as unknown as Rgb) : undefined;
  }
  return undefined;
}

/** Relative luminance (sRGB). */
export function luminance([r, g, b]: Rgb): number {
  const lin = (c: number) => {
    const s = c / 255;
    return s <= 0.04045 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
}

/** Contrast ratio, 1 to 21; undefined when either colour cannot be read. */
export function contrastRatio(a: string | undefined, b: string | undefined): number | undefined {
  const x = parseColor(a);
  const y = parseColor(b);
  if (!x || !y) return undefined;
  const [hi, lo] = [luminance(x), luminance(y)].sort((p, q) => q - p);
  return (hi + 0.05) / (lo + 0.05);
}

/** Text over a background the design draws, and the least ratio WCAG AA asks of it. */
export interface ContrastPair {
  text: string;
  background: string;
  label: string;
  /** 4.5 for body text, 3 for large text and UI parts. */
  minimum: number;
}

const pairs = (suffix: string, scheme: string): ContrastPair[] => [
  { text: `--color-text${suffix}`, background: `--color-background${suffix}`, label: `Body text on the page background${scheme}`, minimum: 4.5 },
  { text: `--color-secondary${suffix}`, background: `--color-background${suffix}`, label: `Quieter text on the page background${scheme}`, minimum: 4.5 },
  { text: `--color-link${suffix}`, background: `--color-background${suffix}`, label: `Links on the page background${scheme}`, minimum: 4.5 },
  { text: `--color-text${suffix}`, background: `--color-surface${suffix}`, label: `Body text on cards and the footer${scheme}`, minimum: 4.5 },
  { text: `--color-secondary${suffix}`, background: `--color-surface${suffix}`, label: `Quieter text on cards and the footer${scheme}`, minimum: 4.5 },
  { text: `--color-on-primary${suffix}`, background: `--color-primary${suffix}`, label: `Button text on the accent colour${scheme}`, minimum: 4.5 },
];

/** The pairs the default design puts text on (src/site/design.css.ts), light then dark scheme. */
export const CONTRAST_PAIRS: readonly ContrastPair[] = [...pairs('', ''), ...pairs('-dark', ' (dark scheme)')];

export interface ContrastFinding extends ContrastPair {
  ratio: number;
}

/** The pairs whose contrast is below their minimum, with the ratio found. */
export function contrastWarnings(variables: Readonly<Record<string, string | undefined>>, list: readonly ContrastPair[] = CONTRAST_PAIRS): ContrastFinding[] {
  const found: ContrastFinding[] = [];
  for (const pair of list) {
    const ratio = contrastRatio(variables[pair.text], variables[pair.background]);
    if (ratio !== undefined && ratio < pair.minimum) found.push({ ...pair, ratio });
  }
  return found;
}
