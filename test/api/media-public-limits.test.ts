/**
 * What an unauthenticated public media read may cost: enlargements bounded in pixels (all frames),
 * cold variants limited per client address (429 with RETRY_INFO and Retry-After; stored variants
 * and originals never), the client address behind a trusted proxy, and signed transform URLs
 * (`:sign_transform`, the `media.transforms.require_signature` setting).
 *
 * The app runs with small bounds (enlargements to 200×200 pixels, 3 cold variants per minute), so
 * every image here is tiny; each test reads from addresses of its own, so buckets never meet.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { startTestApp, type TestApp, type TestUser } from '../support/app.js';
import { startTwoTenants } from '../support/tenants.js';
import { API, expectError, expectInvalid, expectStatus, violations } from '../support/fixtures.js';
import { jpeg, publicUrl, upload } from '../support/media.js';

const MAX_ENLARGED = 200 * 200;
const COLD_PER_MINUTE = 3;

let t: TestApp;
let alice: TestUser;
let bob: TestUser;
let tiny: any; // 16×12 JPEG
let wide: any; // 300×200 JPEG: more pixels than the enlargement bound
let animated: any; // 20×20 GIF, 10 frames
let notes: any; // a text file
let bobsPhoto: any;

let addresses = 0;
/** A client address no other request used (its own bucket). */
const freshAddress = () => `198.51.${100 + Math.floor(addresses / 250)}.${(addresses++ % 250) + 1}`;

/** GET on the public surface from `remoteAddress` (the socket's peer). */
async function getFrom(remoteAddress: string, url: string, headers: Record<string, string> = {}) {
  const res = await t.app.inject({ method: 'GET', url, headers, remoteAddress });
  return Object.assign(res, { bytes: res.rawPayload });
}
const read = (media: any, query = '', address = freshAddress(), websiteId = alice.websiteId) => getFrom(address, publicUrl(websiteId, media.id, query));

/** An animated GIF of `frames` frames of `size`×`size`, each another colour. */
async function animatedGif(size: number, frames: number): Promise<Buffer> {
  const stills = await Promise.all(
    Array.from({ length: frames }, (_, i) => sharp({ create: { width: size, height: size, channels: 3, background: { r: 20 * i, g: 160, b: 90 } } }).png().toBuffer()),
  );
  return sharp(stills, { join: { animated: true } }).gif().toBuffer();
}

/** Asserts a 200 with a body (an image, not JSON). */
function expectOk(res: Awaited<ReturnType<typeof getFrom>>): void {
  expect({ statusCode: res.statusCode, body: res.statusCode === 200 ? '' : res.body }).toEqual({ statusCode: 200, body: '' });
  expect(res.bytes.length).toBeGreaterThan(0);
}

beforeAll(async () => {
  ({ t, alice, bob } = await startTwoTenants({ MEDIA_MAX_ENLARGED_PIXELS: String(MAX_ENLARGED), MEDIA_COLD_TRANSFORMS_PER_MINUTE: String(COLD_PER_MINUTE) }));
  tiny = await upload(t, alice.token, alice.websiteId, 'tiny.jpg', await jpeg(16, 12));
  wide = await upload(t, alice.token, alice.websiteId, 'wide.jpg', await jpeg(300, 200));
  animated = await upload(t, alice.token, alice.websiteId, 'spin.gif', await animatedGif(20, 10));
  notes = await upload(t, alice.token, alice.websiteId, 'notes.txt', Buffer.from('plain text'));
  bobsPhoto = await upload(t, bob.token, bob.websiteId, 'bob.jpg', await jpeg(16, 12));
});
afterAll(() => t?.close());

const size = async (bytes: Buffer) => {
  const m = await sharp(bytes, { animated: true }).metadata();
  return { width: m.width, height: m.pageHeight ?? m.height, frames: m.pages ?? 1, format: m.format };
};

describe('enlargements are bounded in pixels', () => {
  it('an enlargement up to the bound is made; one pixel row beyond it is refused naming w and h', async () => {
    const atTheBound = await read(tiny, '?w=200&h=200&crop=1');
    expect(atTheBound.statusCode).toBe(200);
    expect(await size(atTheBound.bytes)).toMatchObject({ width: 200, height: 200 });
    const error = expectInvalid(await read(tiny, '?w=200&h=201&crop=1'), 'w');
    expect(violations(error).map((v) => v.field)).toEqual(['w', 'h']);
    expect(error.message).toContain('40200');
    expect(error.message).toContain(String(MAX_ENLARGED));
  });

  it('a fit with enlarge counts the pixels it makes, not the box it was given', async () => {
    // 16×12 fitted into 230 wide is 230×173 = 39 790 pixels: inside the bound although 230² is not.
    expect(await size((await read(tiny, '?w=230&enlarge=1')).bytes)).toMatchObject({ width: 230, height: 173 });
    expectInvalid(await read(tiny, '?w=240&enlarge=true&fmt=avif'), 'w');
    expectInvalid(await read(tiny, '?h=4096&enlarge=1'), 'h');
    expectInvalid(await read(tiny, '?w=4096&h=4096&enlarge=1&fmt=avif'), 'w');
  });

  it('without enlarge or crop nothing is enlarged, so SPEC\'s whole range of w and h stays valid', async () => {
    expect(await size((await read(tiny, '?w=4096&h=4096')).bytes)).toMatchObject({ width: 16, height: 12 });
    expect(await size((await read(tiny, '?w=4096&fmt=avif')).bytes)).toMatchObject({ width: 16, height: 12, format: 'heif' });
  });

  it('an original with more pixels than the bound may be enlarged up to its own pixel count', async () => {
    // 300×200 = 60 000 pixels: a crop of the same count is no enlargement, a 301×200 box is.
    expect(await size((await read(wide, '?w=300&h=200&crop=1')).bytes)).toMatchObject({ width: 300, height: 200 });
    expect(await size((await read(wide, '?w=200&h=300&crop=1')).bytes)).toMatchObject({ width: 200, height: 300 });
    expectInvalid(await read(wide, '?w=301&h=200&crop=1'), 'w');
    expectInvalid(await read(wide, '?w=302&enlarge=1'), 'w');
  });

  it('counts every frame of an animation', async () => {
    // 60×60 × 10 frames = 36 000 pixels: made, animated.
    expect(await size((await read(animated, '?w=60&enlarge=1')).bytes)).toEqual({ width: 60, height: 60, frames: 10, format: 'gif' });
    // 100×100 is 10 000 pixels per frame but 100 000 in all: refused once the frames are known.
    const error = expectInvalid(await read(animated, '?w=100&enlarge=1'), 'w');
    expect(error.message).toContain('10 frames');
    expectInvalid(await read(animated, '?w=100&h=100&crop=1&fmt=webp'), 'w');
    // Converted to a still format only the first frame is made: 100×100 is within the bound.
    expect(await size((await read(animated, '?w=100&h=100&crop=1&fmt=png')).bytes)).toEqual({ width: 100, height: 100, frames: 1, format: 'png' });
  });
});

describe('cold variants per client address', () => {
  const limited = (res: Awaited<ReturnType<typeof getFrom>>) => {
    const error = expectError(res, 429, 'RESOURCE_EXHAUSTED');
    const retry = error.details.filter((d: any) => d.type === 'RETRY_INFO');
    expect(retry).toHaveLength(1);
    const seconds = Number(/^(\d+)s$/.exec(retry[0].retry_delay)?.[1]);
    // 3 per minute: a token every 20 s at most.
    expect(seconds).toBeGreaterThanOrEqual(1);
    expect(seconds).toBeLessThanOrEqual(60 / COLD_PER_MINUTE);
    expect(res.headers['retry-after']).toBe(String(seconds));
    return seconds;
  };

  it(`lets an address cause ${COLD_PER_MINUTE} cold variants at once, then answers 429 with RETRY_INFO and Retry-After`, async () => {
    const address = freshAddress();
    for (let i = 1; i <= COLD_PER_MINUTE; i++) expectOk(await read(wide, `?w=${10 + i}`, address));
    limited(await read(wide, '?w=20', address));
    limited(await read(wide, '?w=21&fmt=webp', address));
  });

  it('past the limit the same address still reads stored variants, originals, and 304s; another address still makes variants', async () => {
    const address = freshAddress();
    const first = await read(wide, '?w=31', address);
    expect(first.statusCode).toBe(200);
    for (let i = 2; i <= COLD_PER_MINUTE; i++) expectOk(await read(wide, `?w=${30 + i}`, address));
    limited(await read(wide, '?w=40', address));

    // The variant it made, from memory and from storage alike, and its ETag.
    const again = await read(wide, '?w=31', address);
    expect(again.statusCode).toBe(200);
    expect(Buffer.compare(again.bytes, first.bytes)).toBe(0);
    expect((await getFrom(address, publicUrl(alice.websiteId, wide.id, '?w=31'), { 'if-none-match': first.headers.etag as string })).statusCode).toBe(304);
    const original = await read(wide, '', address);
    expect(original.statusCode).toBe(200);
    expect(original.headers['content-type']).toBe('image/jpeg');
    // A variant another address made is stored, so it is served to the limited one too.
    expectOk(await read(wide, '?w=41&fmt=webp', freshAddress()));
    expect((await read(wide, '?w=41&fmt=webp', address)).statusCode).toBe(200);
    limited(await read(wide, '?w=42&fmt=webp', address));
  });

  it('ignores X-Forwarded-For unless TRUST_PROXY names the peer', async () => {
    const address = freshAddress();
    for (let i = 1; i <= COLD_PER_MINUTE; i++) expectOk(await read(tiny, `?w=${50 + i}`, address));
    limited(await getFrom(address, publicUrl(alice.websiteId, tiny.id, '?w=60'), { 'x-forwarded-for': '203.0.113.99' }));
  });

  it('limits an IPv6 client by its /64, so rotating addresses inside it gains nothing', async () => {
    for (let i = 1; i <= COLD_PER_MINUTE; i++) expectOk(await read(tiny, `?w=${70 + i}`, `2001:db8:aa:1::${i}`));
    limited(await read(tiny, '?w=80', '2001:db8:aa:1:ffff:ffff:ffff:fffe'));
    expectOk(await read(tiny, '?w=80', '2001:db8:aa:2::1'));
  });

  it('refused requests (bad parameters, too large, not an image, absent) cost nothing', async () => {
    const address = freshAddress();
    for (let i = 0; i < 5; i++) {
      expectInvalid(await read(tiny, '?w=0', address), 'w');
      expectInvalid(await read(tiny, '?w=4096&h=4096&crop=1', address), 'w');
      expectInvalid(await read(notes, '?w=10', address), 'w');
      expectError(await getFrom(address, publicUrl(alice.websiteId, 'aaaaaaaaaaaaaaaaaaaa', '?w=10')), 404, 'NOT_FOUND');
    }
    for (let i = 1; i <= COLD_PER_MINUTE; i++) expectOk(await read(tiny, `?w=${90 + i}`, address));
  });
});

describe('behind a proxy (TRUST_PROXY lists it)', () => {
  let proxied: TestApp;
  let media: any;
  beforeAll(async () => {
    proxied = await startTestApp({ TRUST_PROXY: '127.0.0.1', MEDIA_COLD_TRANSFORMS_PER_MINUTE: '1' });
    const user = await proxied.signUp();
    media = { user, photo: await upload(proxied, user.token, user.websiteId, 'p.jpg', await jpeg(40, 30)) };
  });
  afterAll(() => proxied?.close());

  const via = (peer: string, forwardedFor: string, query: string) =>
    proxied.app.inject({ method: 'GET', url: publicUrl(media.user.websiteId, media.photo.id, query), remoteAddress: peer, headers: { 'x-forwarded-for': forwardedFor } });

  it('limits the client the proxy names; a client-chosen entry left of it changes nothing', async () => {
    expect((await via('127.0.0.1', '203.0.113.7', '?w=10')).statusCode).toBe(200);
    // The proxy appended the real client after whatever the client sent.
    expect((await via('127.0.0.1', '6.6.6.6, 203.0.113.7', '?w=11')).statusCode).toBe(429);
    expect((await via('127.0.0.1', '203.0.113.8', '?w=11')).statusCode).toBe(200);
    // A peer that is not the proxy cannot name a client.
    expect((await via('192.0.2.50', '203.0.113.9', '?w=12')).statusCode).toBe(200);
    expect((await via('192.0.2.50', '203.0.113.10', '?w=13')).statusCode).toBe(429);
  });
});

describe('signed transform URLs', () => {
  const mediaPath = (media: any, websiteId = alice.websiteId) => `${API}/websites/${websiteId}/media/${media.id}`;
  const sign = (media: any, body: unknown, token = alice.token, websiteId = alice.websiteId) => t.request('POST', `${mediaPath(media, websiteId)}:sign_transform`, { token, body });
  const signed = async (media: any, body: unknown) => {
    const { url } = expectStatus(await sign(media, body), 200);
    const parsed = new URL(url);
    return { url, path: parsed.pathname, query: parsed.search, sig: parsed.searchParams.get('sig')! };
  };
  const requireSignatures = async (on: boolean) =>
    expectStatus(await t.request('PATCH', `${API}/websites/${alice.websiteId}/settings/media.transforms.require_signature`, { token: alice.token, body: { value: on } }), 200);
  const refused = (res: Awaited<ReturnType<typeof getFrom>>, reason: string) => {
    const error = expectError(res, 403, 'PERMISSION_DENIED');
    expect(error.details).toEqual(expect.arrayContaining([{ type: 'PRECONDITION_FAILURE', reason }, expect.objectContaining({ type: 'FIELD_VIOLATION', field: 'sig' })]));
  };

  it('the setting is in the registry, a website-level boolean, off by default', async () => {
    const descriptor = expectStatus(await t.request('GET', `${API}/setting_descriptors/media.transforms.require_signature`, { token: alice.token }), 200);
    expect(descriptor).toMatchObject({ type: 'BOOLEAN', default_value: false, view_overridable: false });
  });

  it(':sign_transform answers the public URL with the filename, the parameters in canonical order and sig', async () => {
    const { url, sig } = await signed(tiny, { fmt: 'webp', crop: true, h: 10, w: 10, q: 70 });
    expect(url).toBe(`http://api.test/engine-api/v1/websites/${alice.websiteId}/media/${tiny.id}/${tiny.filename}?w=10&h=10&crop=1&q=70&fmt=webp&sig=${sig}`);
    expect(sig).toMatch(/^[A-Za-z0-9_-]{22}$/);
    // The same parameters sign the same way; other parameters or another media do not.
    expect((await signed(tiny, { w: 10, h: 10, crop: true, q: 70, fmt: 'webp' })).sig).toBe(sig);
    expect((await signed(tiny, { w: 10, h: 10, crop: true, q: 71, fmt: 'webp' })).sig).not.toBe(sig);
    expect((await signed(wide, { w: 10, h: 10, crop: true, q: 70, fmt: 'webp' })).sig).not.toBe(sig);
  });

  it(':sign_transform checks the parameters as the read does, naming the field; auth and tenancy as any media method', async () => {
    expectInvalid(await sign(tiny, { w: 0 }), 'w');
    expectInvalid(await sign(tiny, { w: 4097 }), 'w');
    expectInvalid(await sign(tiny, { q: 101 }), 'q');
    expectInvalid(await sign(tiny, { fmt: 'gif' }), 'fmt');
    expectInvalid(await sign(tiny, { w: '10' }), 'w');
    expectInvalid(await sign(tiny, { crop: true, w: 10 }), 'crop');
    expectInvalid(await sign(tiny, { w: 10, sig: 'x' }), 'sig');
    expectInvalid(await sign(tiny, {}), 'w');
    expectInvalid(await sign(tiny, { w: 4096, h: 4096, enlarge: true }), 'w');
    expectInvalid(await sign(notes, { w: 10 }), 'w');
    expectError(await sign(tiny, { w: 10 }, ''), 401, 'UNAUTHENTICATED');
    expectError(await sign(tiny, { w: 10 }, bob.token), 404, 'NOT_FOUND');
    expectError(await sign(bobsPhoto, { w: 10 }), 404, 'NOT_FOUND');
  });

  it('while the website does not require signatures, unsigned parameters work and sig is ignored', async () => {
    expectOk(await read(tiny, '?w=8'));
    expectOk(await read(tiny, '?w=8&sig=AAAAAAAAAAAAAAAAAAAAAA'));
  });

  describe('when the website requires signatures', () => {
    beforeAll(() => requireSignatures(true));
    afterAll(() => requireSignatures(false));

    it('a signed URL is served, in any spelling of its parameters and with cache busters added', async () => {
      const { path, query, sig } = await signed(wide, { w: 120, fmt: 'webp' });
      const res = await getFrom(freshAddress(), path + query);
      expect(res.statusCode).toBe(200);
      expect(await size(res.bytes)).toMatchObject({ width: 120, height: 80, format: 'webp' });
      expectOk(await read(wide, `?fmt=webp&w=0120&sig=${sig}&v=3`));
    });

    it('transform parameters without sig answer 403 PERMISSION_DENIED (SIGNATURE_REQUIRED), even for a variant already stored', async () => {
      const { path, query } = await signed(wide, { w: 50 });
      expectOk(await getFrom(freshAddress(), path + query));
      refused(await read(wide, '?w=50'), 'SIGNATURE_REQUIRED');
      refused(await read(wide, '?fmt=auto'), 'SIGNATURE_REQUIRED');
    });

    it('a tampered parameter, a tampered sig, or the sig of another media or website answers 403 (SIGNATURE_INVALID)', async () => {
      const { sig } = await signed(tiny, { w: 12, fmt: 'png' });
      expectOk(await read(tiny, `?w=12&fmt=png&sig=${sig}`));
      refused(await read(tiny, `?w=13&fmt=png&sig=${sig}`), 'SIGNATURE_INVALID');
      refused(await read(tiny, `?w=12&fmt=png&enlarge=1&sig=${sig}`), 'SIGNATURE_INVALID');
      refused(await read(tiny, `?w=12&sig=${sig}`), 'SIGNATURE_INVALID');
      const flipped = (sig[0] === 'A' ? 'B' : 'A') + sig.slice(1);
      refused(await read(tiny, `?w=12&fmt=png&sig=${flipped}`), 'SIGNATURE_INVALID');
      refused(await read(wide, `?w=12&fmt=png&sig=${sig}`), 'SIGNATURE_INVALID');
      refused(await read(tiny, `?w=12&fmt=png&sig=${sig.slice(0, 21)}`), 'SIGNATURE_INVALID');
      refused(await read(tiny, `?w=12&fmt=png&sig=${'A'.repeat(5000)}`), 'SIGNATURE_INVALID');
      refused(await read(tiny, '?w=12&fmt=png&sig='), 'SIGNATURE_INVALID');
      expectInvalid(await read(tiny, `?w=12&fmt=png&sig=${sig}&sig=${sig}`), 'sig');
    });

    it('another website keeps its own setting: Bob\'s variants need no signature', async () => {
      expectOk(await read(bobsPhoto, '?w=9', freshAddress(), bob.websiteId));
      // Alice's signature does not open Bob's media either way round.
      const { sig } = await signed(tiny, { w: 9 });
      expectOk(await read(bobsPhoto, `?w=9&sig=${sig}`, freshAddress(), bob.websiteId));
    });

    it('the original stays readable without a signature, by id and by filename', async () => {
      const byId = await read(tiny);
      expect(byId.statusCode).toBe(200);
      expect(byId.headers['content-type']).toBe('image/jpeg');
      expect((await getFrom(freshAddress(), new URL(tiny.url).pathname)).statusCode).toBe(200);
      expect((await getFrom(freshAddress(), `${new URL(tiny.url).pathname}?sig=whatever&v=2`)).statusCode).toBe(200);
    });

    it('invalid parameters are still 400 naming them, and an unknown media 404, before any signature question', async () => {
      expectInvalid(await read(tiny, '?w=abc&sig=x'), 'w');
      expectError(await getFrom(freshAddress(), publicUrl(alice.websiteId, 'aaaaaaaaaaaaaaaaaaaa', '?w=10')), 404, 'NOT_FOUND');
    });
  });

  it('once the setting is off again, unsigned parameters work again', async () => {
    expectOk(await read(tiny, '?w=7'));
  });
});

describe('configuration', () => {
  const config = (env: Record<string, string>) => loadConfig({ DATA_DIR: t.config.dataDir, ...env });

  it('defaults: enlargements to 2048×2048 pixels, AVIF effort 1, 60 cold variants per minute, signing key kept in DATA_DIR', () => {
    const defaults = config({});
    expect(defaults.media).toMatchObject({ maxEnlargedPixels: 2048 * 2048, avifEffort: 1, coldTransformsPerMinute: 60 });
    expect(defaults.mediaSigningSecret.length).toBeGreaterThanOrEqual(32);
    // Generated once: a second start reads the same key.
    expect(config({}).mediaSigningSecret.equals(defaults.mediaSigningSecret)).toBe(true);
    expect(config({ MEDIA_SIGNING_SECRET: 'another-secret-of-enough-length' }).mediaSigningSecret.toString()).toBe('another-secret-of-enough-length');
  });

  it('refuses values out of range', () => {
    expect(() => config({ MEDIA_AVIF_EFFORT: '10' })).toThrow(/MEDIA_AVIF_EFFORT/);
    expect(() => config({ MEDIA_COLD_TRANSFORMS_PER_MINUTE: '-1' })).toThrow(/MEDIA_COLD_TRANSFORMS_PER_MINUTE/);
    expect(() => config({ MEDIA_MAX_ENLARGED_PIXELS: '0' })).toThrow(/MEDIA_MAX_ENLARGED_PIXELS/);
    expect(() => config({ MEDIA_SIGNING_SECRET: 'short' })).toThrow(/MEDIA_SIGNING_SECRET/);
    expect(config({ MEDIA_COLD_TRANSFORMS_PER_MINUTE: '0' }).media.coldTransformsPerMinute).toBe(0);
  });

  it('in production without MEDIA_SIGNING_SECRET the key derives from JWT_SECRET: starts with RUNTIME.md\'s variables alone, and servers agree', () => {
    const production = (jwt: string) => config({ NODE_ENV: 'production', JWT_SECRET: jwt, ENCRYPTION_KEY: Buffer.alloc(32).toString('base64') }).mediaSigningSecret;
    expect(production('one-jwt-secret').equals(production('one-jwt-secret'))).toBe(true);
    expect(production('one-jwt-secret').equals(production('another-jwt-secret'))).toBe(false);
    expect(production('one-jwt-secret').equals(Buffer.from('one-jwt-secret'))).toBe(false);
    expect(production('one-jwt-secret').equals(config({}).mediaSigningSecret)).toBe(false);
  });

  it('TRUST_PROXY: unset or false trusts nobody, true every hop, anything else is a list of proxies', () => {
    expect(config({}).trustProxy).toBe(false);
    expect(config({ TRUST_PROXY: 'false' }).trustProxy).toBe(false);
    expect(config({ TRUST_PROXY: 'true' }).trustProxy).toBe(true);
    expect(config({ TRUST_PROXY: '10.0.0.0/8, 127.0.0.1' }).trustProxy).toBe('10.0.0.0/8, 127.0.0.1');
  });
});
