// Text the blog writes outside HTML: feeds' XML and plain-text summaries (the rendered site, search).

/**
 * Text for XML 1.0: `&`, `<`, `>`, quotes escaped, and the characters XML cannot carry at all
 * (controls other than tab and newlines, lone surrogates, U+FFFE/U+FFFF) dropped, so a hostile
 * title cannot break a feed (`]]>` needs nothing more: no CDATA is used).
 */
export function xml(text: string): string {
  return text
    .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]|[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&apos;');
}

/** Sanitised HTML → plain text (tags dropped, the entities the sanitiser writes decoded), for meta descriptions and summaries. */
export function htmlToText(html: string): string {
  return html
    .replace(/<[^>]*>/g, ' ')
    .replace(/&(#x[0-9a-f]+|#[0-9]+|amp|lt|gt|quot|apos|nbsp);/gi, (_m, e: string) => {
      const lower = e.toLowerCase();
      if (lower.startsWith('#x')) return safeCodePoint(parseInt(lower.slice(2), 16));
      if (lower.startsWith('#')) return safeCodePoint(parseInt(lower.slice(1), 10));
      return ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'", nbsp: ' ' } as Record<string, string>)[lower];
    })
    .replace(/\s+/g, ' ')
    .trim();
}

const safeCodePoint = (n: number) => (Number.isInteger(n) && n > 0 && n <= 0x10ffff ? String.fromCodePoint(n) : '');
