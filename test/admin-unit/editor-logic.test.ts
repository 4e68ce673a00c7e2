// The content editors' pure rules (no browser): url_key from a title, the readable diff of rich
// text and of whole versions, publish times in the website's zone, and the list filters.
import { describe, expect, it } from 'vitest';
import { keyFollowsTitle, urlKeyFromTitle, urlKeyProblem } from '../../admin/src/areas/pages/editor/url-key.js';
import { changedFields, diffParts, fieldText, htmlToText } from '../../admin/src/areas/pages/editor/diff-view.js';
import { formatInZone, utcToZoned, zonedToUtc } from '../../admin/src/areas/blog/schedule-time.js';
import { contentListFilter } from '../../admin/src/areas/pages/list-search.js';
import { postListFilter } from '../../admin/src/areas/blog/post-list-search.js';
import { mediaFilter } from '../../admin/src/areas/media/media-query.js';
import { slugOf } from '../../src/cms/cms.service.js';

describe('url_key derived from the title', () => {
  it('lowercases, drops accents and joins words with a hyphen, as the API derives it', () => {
    for (const title of ['About us & more!', 'Crème brûlée — 2026', '  Straße  ', 'Our bakery', 'A/B testing: why?']) expect(urlKeyFromTitle(title)).toBe(slugOf(title));
  });

  it('gives an empty key for a title the API transliterates (the API then derives it on save)', () => {
    expect(urlKeyFromTitle('Привет мир')).toBe('');
  });

  it('follows the title while the key is empty or still the derived one, not once typed', () => {
    expect(keyFollowsTitle('', 'Anything')).toBe(true);
    expect(keyFollowsTitle('our-bakery', 'Our bakery')).toBe(true);
    expect(keyFollowsTitle('bakery', 'Our bakery')).toBe(false);
  });

  it('accepts what the API accepts (segments joined by a slash) and explains the rest', () => {
    expect(urlKeyProblem('company/team')).toBeUndefined();
    expect(urlKeyProblem('Company')).toMatch(/lowercase/);
    expect(urlKeyProblem('a//b')).toMatch(/lowercase/);
    expect(urlKeyProblem('x'.repeat(256))).toMatch(/255/);
  });
});

describe('readable differences', () => {
  it('reads rich text as blocks on lines, with list bullets, links, images and embedded blocks named', () => {
    const html = '<h2>Fresh</h2><ul><li><p>Bread</p></li><li><p>Cakes</p></li></ul><p>Find us on the <a href="https://m.example/x">map</a> &amp; more</p><img src="/m/1" alt="A croissant"><div data-block="hours"></div>';
    expect(htmlToText(html)).toBe('Fresh\n• Bread\n• Cakes\nFind us on the map (https://m.example/x) & more\n[image: A croissant]\n[block: hours]');
  });

  it('marks removed and added words, keeping the rest', () => {
    expect(diffParts('Our bakery', 'Our bakery and café')).toEqual([
      { kind: 'same', text: 'Our bakery ' },
      { kind: 'added', text: 'and café' },
    ]);
    expect(diffParts('old title', 'new title').map((p) => p.kind)).toEqual(['removed', 'added', 'same']);
  });

  it('compares fields as readers see them: markup-only changes are no change, lists by their items', () => {
    const a = { title: 'T', content: '<p>Same text</p>', tag_ids: ['x', 'y'] };
    const b = { title: 'T', content: '<p>Same <strong>text</strong></p>', tag_ids: ['x'] };
    expect(changedFields(a, b, ['title', 'content', 'tag_ids'], ['content'])).toEqual(['tag_ids']);
    expect(fieldText(undefined)).toBe('');
    expect(fieldText(['a', 'b'])).toBe('a, b');
  });
});

describe('publish times in the website time zone', () => {
  it('turns a wall time of the website into the instant, across DST', () => {
    expect(zonedToUtc('2026-11-27', '14:05', 'Europe/Berlin')).toBe('2026-11-27T13:05:00Z');
    expect(zonedToUtc('2026-07-01', '09:00', 'America/New_York')).toBe('2026-07-01T13:00:00Z');
    // 02:30 does not exist in Berlin that night (clocks jump to 03:00): it moves forward.
    expect(zonedToUtc('2026-03-29', '02:30', 'Europe/Berlin')).toBe('2026-03-29T01:30:00Z');
  });

  it('shows an instant on the website clock and names the zone', () => {
    expect(utcToZoned('2026-11-27T13:05:00Z', 'Europe/Berlin')).toEqual({ date: '2026-11-27', time: '14:05' });
    expect(formatInZone('2026-11-27T13:05:00Z', 'Asia/Tokyo', 'en-GB')).toBe('27 Nov 2026, 22:05 (Asia/Tokyo)');
  });
});

describe('list filters', () => {
  it('pages: title contains, state, view membership, joined by AND', () => {
    expect(contentListFilter({})).toBeUndefined();
    expect(contentListFilter({ q: 'say "hi"', active: 'false', view: 'v1' })).toBe('title:"say \\"hi\\"" AND is_active = false AND visible_view_ids:"v1"');
  });

  it('posts: state, category, tag, author', () => {
    expect(postListFilter({ state: 'SCHEDULED', category: 'c', tag: 't', author: 'a' })).toBe('state = SCHEDULED AND category_ids:"c" AND tag_ids:"t" AND author_ids:"a"');
  });

  it('media: a folder, the root, images only, file name search', () => {
    expect(mediaFilter({ folderId: null, imagesOnly: true, search: 'cro' })).toBe('folder_id = null AND is_image = true AND original_filename:"cro"');
    expect(mediaFilter({ folderId: 'f1' })).toBe('folder_id = "f1"');
    expect(mediaFilter({})).toBeUndefined();
  });
});
