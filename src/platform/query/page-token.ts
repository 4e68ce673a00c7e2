import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import { InvalidArgument } from '../errors.js';

/** What a page token remembers: the query it belongs to, where the last page ended, the count. */
export interface PageCursor {
  /** Hash of collection + filter + order the token was minted under. */
  binding: string;
  /** Sort-key values of the last row returned. */
  after: unknown[];
  /** total_size counted on the first page of the chain, reused by later pages. */
  total: number;
}

/** Hash binding a token to one collection, filter and order. */
export function queryBinding(collection: string, filter: string, orderBy: string): string {
  return createHash('sha256').update(`${collection}\n${filter}\n${orderBy}`).digest('base64url').slice(0, 16);
}

/** Opaque, signed page tokens: base64url(JSON) + '.' + HMAC, so tampering is detected. */
export function createPageTokenCodec(secret: Uint8Array) {
  const key = createHash('sha256').update('page-token\n').update(secret).digest();
  const sign = (body: string) => createHmac('sha256', key).update(body).digest('base64url').slice(0, 22);
  return {
    encode(cursor: PageCursor): string {
      const body = Buffer.from(JSON.stringify([cursor.binding, cursor.after, cursor.total])).toString('base64url');
      return `${body}.${sign(body)}`;
    },
    /** Decodes a token and checks it belongs to `binding`; anything else is INVALID_ARGUMENT on page_token. */
    decode(token: string, binding: string): PageCursor {
      const invalid = (why: string) => InvalidArgument.field('page_token', why);
      const [body, mac, extra] = token.split('.');
      if (!body || !mac || extra !== undefined) throw invalid('is not a page token of this API');
      const expected = Buffer.from(sign(body));
      const given = Buffer.from(mac);
      if (expected.length !== given.length || !timingSafeEqual(expected, given)) throw invalid('is not a page token of this API');
      const [tokenBinding, after, total] = JSON.parse(Buffer.from(body, 'base64url').toString()) as [string, unknown[], number];
      if (tokenBinding !== binding) throw invalid('was minted under a different filter or order_by; start again without page_token');
      return { binding: tokenBinding, after, total };
    },
  };
}
export type PageTokenCodec = ReturnType<typeof createPageTokenCodec>;
