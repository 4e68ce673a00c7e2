// WCAG contrast of theme colours (admin/src/lib/contrast.ts): the theme screen's warnings.
import { describe, expect, it } from 'vitest';
import { contrastRatio, contrastWarnings, parseColor } from '../../admin/src/lib/contrast.js';

describe('theme contrast', () => {
  it('reads #rgb, #rrggbb, #rrggbbaa and rgb(); anything else is not judged', () => {
    expect(parseColor('#fff')).toEqual([255, 255, 255]);
    expect(parseColor('#1F6FEB')).toEqual([31, 111, 235]);
    expect(parseColor('#1f6feb80')).toEqual([31, 111, 235]);
    expect(parseColor('rgb(0, 128, 255)')).toEqual([0, 128, 255]);
    expect(parseColor('rgb(0 128 255 / 50%)')).toEqual([0, 128, 255]);
    expect(parseColor('rebeccapurple')).toBeUndefined();
    expect(parseColor('var(--x)')).toBeUndefined();
    expect(parseColor('rgb(300, 0, 0)')).toBeUndefined();
  });

  it('computes the WCAG ratio: black on white is 21:1, a colour on itself 1:1, order does not matter', () => {
    expect(contrastRatio('#000', '#fff')).toBeCloseTo(21, 5);
    expect(contrastRatio('#777777', '#777777')).toBeCloseTo(1, 5);
    // #767676 on white is the well-known 4.54:1 grey.
    expect(contrastRatio('#767676', '#ffffff')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#ffffff', '#767676')).toBeCloseTo(4.54, 2);
    expect(contrastRatio('#000', 'transparent')).toBeUndefined();
  });

  it('warns about each text/background pair of the design below its minimum, with the ratio', () => {
    const defaults = {
      '--color-text': '#1f2328', '--color-secondary': '#59636e', '--color-link': '#0969da', '--color-background': '#ffffff', '--color-surface': '#f6f8fa',
      '--color-primary': '#1f6feb', '--color-on-primary': '#ffffff',
    };
    expect(contrastWarnings(defaults)).toEqual([]);
    const found = contrastWarnings({ ...defaults, '--color-primary': '#ffeb3b' });
    expect(found.map((f) => f.label)).toEqual(['Button text on the accent colour']);
    expect(found[0].ratio).toBeLessThan(1.5);
    expect(contrastWarnings({ ...defaults, '--color-text': '#aaaaaa' }).map((f) => f.text)).toEqual(['--color-text', '--color-text']);
  });
});
