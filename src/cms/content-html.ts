import { createRequire } from 'node:module';
import type sanitizeHtml from 'sanitize-html';

// Loaded by the first write that carries rich text: sanitize-html and its parsers (htmlparser2,
// postcss) are some 15 MB of a server's idle memory otherwise (issue 24). CommonJS, so synchronous.
let sanitizer: typeof sanitizeHtml | undefined;
const loadSanitizer = () => (sanitizer ??= createRequire(import.meta.url)('sanitize-html') as typeof sanitizeHtml);

/**
 * Rich-text HTML of pages and blocks, sanitised on write with an explicit allow-list, so stored
 * content can never run script on a rendered site: no `<script>`, `<style>`, event handlers,
 * `javascript:`/`data:` URLs, forms, `<object>`/`<embed>`, or `<iframe>` except video embeds of
 * the listed hosts. Everything outside the list is dropped (its text kept where it is text).
 */
const OPTIONS: sanitizeHtml.IOptions = {
  allowedTags: [
    'p', 'br', 'hr', 'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'div', 'span', 'section', 'article', 'header', 'footer', 'aside', 'nav', 'main',
    'strong', 'b', 'em', 'i', 'u', 's', 'del', 'ins', 'sub', 'sup', 'small', 'mark', 'abbr', 'cite', 'q', 'blockquote', 'code', 'pre', 'kbd', 'time',
    'ul', 'ol', 'li', 'dl', 'dt', 'dd', 'a', 'img', 'picture', 'source', 'figure', 'figcaption',
    'table', 'caption', 'colgroup', 'col', 'thead', 'tbody', 'tfoot', 'tr', 'th', 'td', 'iframe',
  ],
  allowedAttributes: {
    '*': ['class', 'id', 'title', 'lang', 'dir', 'style', 'data-*', 'aria-*', 'role'],
    a: ['href', 'name', 'target', 'rel'],
    img: ['src', 'srcset', 'sizes', 'alt', 'width', 'height', 'loading'],
    source: ['srcset', 'sizes', 'media', 'type'],
    time: ['datetime'],
    ol: ['start', 'reversed', 'type'],
    col: ['span'],
    colgroup: ['span'],
    th: ['colspan', 'rowspan', 'scope'],
    td: ['colspan', 'rowspan'],
    iframe: ['src', 'width', 'height', 'allow', 'allowfullscreen', 'frameborder', 'loading'],
  },
  allowedSchemes: ['http', 'https', 'mailto', 'tel'],
  allowedSchemesAppliedToAttributes: ['href', 'src', 'srcset', 'cite'],
  allowProtocolRelative: false,
  // Video embeds only; everything else in an iframe could frame a phishing page or script.
  allowedIframeHostnames: ['www.youtube.com', 'www.youtube-nocookie.com', 'player.vimeo.com'],
  allowIframeRelativeUrls: false,
  // Styles by property with value patterns: no url(), expression() or other script-bearing values.
  allowedStyles: {
    '*': {
      'text-align': [/^(left|right|center|justify|start|end)$/],
      color: [/^#[0-9a-fA-F]{3,8}$/, /^rgba?\([\d\s.,%]+\)$/, /^[a-z]+$/],
      'background-color': [/^#[0-9a-fA-F]{3,8}$/, /^rgba?\([\d\s.,%]+\)$/, /^[a-z]+$/],
      'font-weight': [/^(normal|bold|[1-9]00)$/],
      'font-style': [/^(normal|italic)$/],
      'text-decoration': [/^(none|underline|line-through)$/],
      width: [/^\d+(\.\d+)?(px|%|em|rem)?$/],
      height: [/^\d+(\.\d+)?(px|%|em|rem)?$/],
    },
  },
  // Text of dropped elements is kept, except where the element's content is code or markup.
  disallowedTagsMode: 'discard',
  nonTextTags: ['script', 'style', 'textarea', 'option', 'noscript', 'template', 'xmp', 'noembed', 'noframes', 'title'],
  // An iframe whose source was refused is dropped whole rather than left as an empty frame.
  exclusiveFilter: (frame) => frame.tag === 'iframe' && !frame.attribs.src,
  transformTags: {
    // A link opening a new tab must not hand the new page a handle on this one.
    a: (tagName, attribs) => (attribs.target === '_blank' ? { tagName, attribs: { ...attribs, rel: 'noopener noreferrer' } } : { tagName, attribs }),
  },
};

/** The allow-listed form of `html`; null and undefined pass through (a cleared field). */
export function sanitizeContent(html: string | null | undefined): string | null | undefined {
  if (html === null || html === undefined) return html;
  return loadSanitizer()(html, OPTIONS);
}

/** Fields of a row holding rich text, sanitised in place before the row is stored. */
export function sanitizeFields(row: Record<string, unknown>, fields: readonly string[]): void {
  for (const field of fields) {
    const value = row[field];
    if (typeof value === 'string') row[field] = sanitizeContent(value);
  }
}
