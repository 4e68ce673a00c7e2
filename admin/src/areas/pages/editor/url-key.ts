/**
 * The url_key a title gives, as the API derives it when none is sent (src/cms/cms.service.ts
 * `slugOf`): accents dropped, lowercase, anything else joined by `-`. Pure (unit-tested in
 * test/admin-unit/editor-logic.test.ts). Scripts the API transliterates (Cyrillic, CJK…) give ''
 * here: the editor then leaves the key empty and the API derives it on save.
 */
export function urlKeyFromTitle(title: string): string {
  return title
    .replace(/ß/g, 'ss')
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '')
    .slice(0, 200)
    .replace(/-+$/, '');
}

/** What the API accepts as a page's url_key (segments joined by `/`); a message when not. */
export function urlKeyProblem(key: string): string | undefined {
  if (key === '') return undefined;
  if (key.length > 255) return 'At most 255 characters.';
  if (!/^[a-z0-9._-]+(\/[a-z0-9._-]+)*$/.test(key)) return 'Use lowercase letters, digits, “.”, “_”, “-”, and “/” between segments.';
  return undefined;
}

/**
 * Whether the key still follows the title: a key the person has not typed themselves (empty, or
 * the one the title gives) changes with the title, as in Ghost's editor.
 */
export function keyFollowsTitle(key: string, title: string): boolean {
  return key === '' || key === urlKeyFromTitle(title);
}
