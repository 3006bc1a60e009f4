/**
 * getBild resizing end to end: over HTTP and SOAP, with the variant cache on disk, the
 * resize queue's BUSY answer on every binding, and the limits refused as catalogue errors.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import sharp from 'sharp';
import { ImageService, type ImageServiceDeps } from '../src/images/image-service.ts';
import type { ImageSettings } from '../src/images/image-settings.ts';
import { type Resizer, resizeImage } from '../src/images/resize.ts';
import { bundleJson, importFolder, scratch } from './support/bundles.ts';
import { type Fixture, REFERENCE_BUNDLE, startFixture } from './support/fixture-server.ts';
import {
  assertColour,
  BLUE,
  bands,
  decode,
  GREEN,
  halves,
  pngBomb,
  RED,
  TEST_IMAGE_SETTINGS,
} from './support/images.ts';

const s = scratch();
const NS = 'http://scoop.example.org/api';
const PUBLIC = '/scoop/api/v6/public.asmx';

const PLAN_SVG = Buffer.from(
  '<svg xmlns="http://www.w3.org/2000/svg" width="100" height="50"><rect width="100" height="50" fill="#00ff00"/></svg>',
);
let bandsPng: Buffer;
let gpsJpeg: Buffer;
let bomb: Buffer;
let bundle: string;

function bildBundle(png: Buffer): string {
  return s.bundle(
    bundleJson({
      bilder: [
        { bildID: 300, file: 'files/markt.png', filename: 'markt.png', mimetype: 'image/png' },
        { bildID: 301, file: 'files/gps.jpg', filename: 'gps.jpg', mimetype: 'image/jpeg' },
        { bildID: 302, file: 'files/bombe.png', filename: 'bombe.png', mimetype: 'image/png' },
        { bildID: 303, file: 'files/plan.svg', filename: 'plan.svg', mimetype: 'image/svg+xml' },
      ],
    }),
    { 'files/markt.png': png, 'files/gps.jpg': gpsJpeg, 'files/bombe.png': bomb, 'files/plan.svg': PLAN_SVG },
  );
}

before(async () => {
  bandsPng = await bands(200, 100);
  gpsJpeg = await sharp(await halves(64, 48, 'jpeg'))
    .withExif({ IFD3: { GPSLatitudeRef: 'N', GPSLatitude: '52/1 31/1 12/1' } })
    .jpeg()
    .toBuffer();
  bomb = await pngBomb(30_000);
  bundle = bildBundle(bandsPng);
});

async function start(settings: Partial<ImageSettings> = {}, deps: ImageServiceDeps = {}): Promise<Fixture> {
  const images = await ImageService.open({ ...TEST_IMAGE_SETTINGS, ...settings }, deps);
  return startFixture({ images }, [REFERENCE_BUNDLE, bundle]);
}

/** Runs `work` against a fresh server, stopping it afterwards. */
async function withServer(
  settings: Partial<ImageSettings>,
  deps: ImageServiceDeps,
  work: (f: Fixture) => Promise<void>,
): Promise<void> {
  const f = await start(settings, deps);
  try {
    await work(f);
  } finally {
    await f.stop();
  }
}

interface Answer {
  readonly status: number;
  readonly headers: Headers;
  readonly text: string;
}

function field(text: string, name: string): string | undefined {
  return new RegExp(`<${name}>([^<]*)</${name}>`).exec(text)?.[1];
}

function dataOf(answer: Answer): Buffer {
  return Buffer.from(field(answer.text, 'data') ?? '', 'base64');
}

async function get(f: Fixture, query: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${f.server.url}${PUBLIC}/getBild?${query}`, { headers });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

function bildQuery(id: number, width: number, height: number, modes: string[] = []): string {
  return [`bildID=${id}`, `width=${width}`, `height=${height}`, ...modes.map((m) => `resizeModes=${m}`)].join(
    '&',
  );
}

async function post(f: Fixture, body: string): Promise<Answer> {
  const res = await fetch(`${f.server.url}${PUBLIC}/getBild`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body,
  });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

async function soap(
  f: Fixture,
  version: '1.1' | '1.2',
  id: number,
  width: number,
  height: number,
): Promise<Answer> {
  const envelope =
    version === '1.1'
      ? 'http://schemas.xmlsoap.org/soap/envelope/'
      : 'http://www.w3.org/2003/05/soap-envelope';
  const body =
    `<?xml version="1.0" encoding="utf-8"?><s:Envelope xmlns:s="${envelope}"><s:Body>` +
    `<getBild xmlns="${NS}"><bildID>${id}</bildID><width>${width}</width><height>${height}</height>` +
    `<resizeModes><resizeMode>crop</resizeMode></resizeModes></getBild></s:Body></s:Envelope>`;
  const headers: Record<string, string> =
    version === '1.1'
      ? { 'content-type': 'text/xml; charset=utf-8', soapaction: `"${NS}/getBild"` }
      : { 'content-type': 'application/soap+xml; charset=utf-8' };
  const res = await fetch(`${f.server.url}${PUBLIC}`, { method: 'POST', headers, body });
  return { status: res.status, headers: res.headers, text: await res.text() };
}

/** A resizer that counts calls and can be held until `open()`. */
function controlledResizer(held = false) {
  let open: () => void = () => undefined;
  const gate = held
    ? new Promise<void>((resolve) => {
        open = resolve;
      })
    : Promise.resolve();
  const state = { calls: 0, open: () => open() };
  const resizer: Resizer = async (input, request, limits) => {
    state.calls++;
    await gate;
    return resizeImage(input, request, limits);
  };
  return Object.assign(state, { resizer });
}

describe('getBild resizes, on every binding', () => {
  let f: Fixture;
  before(async () => {
    f = await start();
  });
  after(async () => {
    await f.stop();
  });

  test('HTTP GET crop 100×100: the box exactly, middle band only; size and mimetype of the bytes returned', async () => {
    const answer = await get(f, bildQuery(300, 100, 100, ['crop']));
    assert.equal(answer.status, 200, answer.text);
    const bytes = dataOf(answer);
    assert.equal(field(answer.text, 'size'), String(bytes.length));
    assert.equal(field(answer.text, 'mimetype'), 'image/png');
    assert.equal(field(answer.text, 'filename'), 'markt.png');
    const out = await decode(bytes);
    assert.deepEqual([out.width, out.height], [100, 100]);
    assertColour(out.pixel(0, 0), GREEN, 'cropped-away corner is not red');
    assertColour(out.pixel(99, 99), GREEN, 'cropped-away corner is not blue');
  });

  test('HTTP POST, SOAP 1.1 and SOAP 1.2 return the same variant', async () => {
    const viaGet = dataOf(await get(f, bildQuery(300, 60, 30, ['crop'])));
    const viaPost = dataOf(await post(f, bildQuery(300, 60, 30, ['crop'])));
    const via11 = dataOf(await soap(f, '1.1', 300, 60, 30));
    const via12 = dataOf(await soap(f, '1.2', 300, 60, 30));
    assert.ok(viaGet.length > 0);
    for (const other of [viaPost, via11, via12]) assert.deepEqual(other, viaGet);
    const out = await decode(viaGet);
    assert.deepEqual([out.width, out.height], [60, 30]);
    assertColour(out.pixel(1, 15), RED, 'crop of 2:1 to 2:1 cuts nothing');
    assertColour(out.pixel(58, 15), BLUE, 'right edge');
  });

  test('0×0 returns the stored bytes exactly, EXIF and all; a resize strips it', async () => {
    const stored = await get(f, bildQuery(301, 0, 0, ['crop']));
    assert.deepEqual(dataOf(stored), gpsJpeg);
    assert.equal(field(stored.text, 'size'), String(gpsJpeg.length));
    assert.ok((await sharp(dataOf(stored)).metadata()).exif);
    const resized = dataOf(await get(f, bildQuery(301, 32, 0)));
    const meta = await sharp(resized).metadata();
    assert.deepEqual([meta.format, meta.width, meta.height, meta.exif], ['jpeg', 32, 24, undefined]);
  });

  test('a resized HTTP GET answer has an ETag and Cache-Control, and If-None-Match gives 304', async () => {
    const first = await get(f, bildQuery(300, 40, 40, ['background']));
    const etag = first.headers.get('etag');
    assert.ok(etag);
    assert.match(first.headers.get('cache-control') ?? '', /^public, max-age=\d+$/);
    const again = await get(f, bildQuery(300, 40, 40, ['background']), { 'if-none-match': etag });
    assert.equal(again.status, 304);
    const other = await get(f, bildQuery(300, 40, 41, ['background']));
    assert.notEqual(other.headers.get('etag'), etag);
  });

  test('a decompression bomb is refused as IMAGE_TOO_LARGE (422 / Client fault); 0×0 still returns it', async () => {
    const http = await get(f, bildQuery(302, 100, 100));
    assert.equal(http.status, 422);
    assert.equal(field(http.text, 'code'), 'IMAGE_TOO_LARGE');
    const fault = await soap(f, '1.1', 302, 100, 100);
    assert.equal(fault.status, 500);
    assert.match(fault.text, /<faultcode>soap:Client<\/faultcode>/);
    assert.match(fault.text, /IMAGE_TOO_LARGE<\/errorCode>/);
    const stored = await get(f, bildQuery(302, 0, 0));
    assert.equal(stored.status, 200);
    assert.equal(field(stored.text, 'size'), String(bomb.length));
  });

  test('an SVG is not rasterised by default (IMAGE_NOT_RESIZABLE); 0×0 returns it as stored', async () => {
    const refused = await get(f, bildQuery(303, 40, 0));
    assert.equal(refused.status, 422);
    assert.equal(field(refused.text, 'code'), 'IMAGE_NOT_RESIZABLE');
    const stored = await get(f, bildQuery(303, 0, 0));
    assert.equal(stored.status, 200);
    assert.deepEqual(dataOf(stored), PLAN_SVG);
    assert.equal(field(stored.text, 'mimetype'), 'image/svg+xml');
    await withServer({ svg: true }, {}, async (on) => {
      const resized = await get(on, bildQuery(303, 40, 0));
      assert.equal(resized.status, 200);
      assert.equal(field(resized.text, 'mimetype'), 'image/png');
      assert.equal(field(resized.text, 'filename'), 'plan.png');
      assertColour((await decode(dataOf(resized))).pixel(20, 10), GREEN, 'fill');
    });
  });

  test('width above SCOOP_MAX_IMAGE_DIMENSION is still INVALID_PARAMETER', async () => {
    const answer = await get(f, bildQuery(300, 4097, 10));
    assert.equal(answer.status, 400);
    assert.equal(field(answer.text, 'code'), 'INVALID_PARAMETER');
  });
});

describe('a full resize queue answers BUSY with Retry-After, and nothing else waits for it', () => {
  let f: Fixture;
  let held: ReturnType<typeof controlledResizer>;
  before(async () => {
    held = controlledResizer(true);
    f = await start({ concurrency: 1, maxWaiting: 0 }, { resizer: held.resizer });
  });
  after(async () => {
    held.open();
    await f.stop();
  });

  test('every binding gets BUSY while the one slot is taken; other answers come at once', async () => {
    const blocking = get(f, bildQuery(300, 10, 10));
    while (held.calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));

    for (const answer of [await get(f, bildQuery(300, 11, 11)), await post(f, bildQuery(300, 12, 12))]) {
      assert.equal(answer.status, 503);
      assert.equal(field(answer.text, 'code'), 'BUSY');
      assert.match(answer.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    }
    const soap11 = await soap(f, '1.1', 300, 13, 13);
    assert.equal(soap11.status, 500);
    assert.match(soap11.text, /<faultcode>soap:Server<\/faultcode>/);
    assert.match(soap11.text, /BUSY<\/errorCode>/);
    assert.match(soap11.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    const soap12 = await soap(f, '1.2', 300, 14, 14);
    assert.equal(soap12.status, 500);
    assert.match(soap12.text, /<soap:Value>soap:Receiver<\/soap:Value>/);
    assert.match(soap12.headers.get('retry-after') ?? '', /^[1-9]\d*$/);

    // Not queued behind the resize: other operations, and getBild needing no resize.
    const bereich = await fetch(`${f.server.url}${PUBLIC}/getBereich?bereichID=1`);
    assert.equal(bereich.status, 200);
    await bereich.arrayBuffer();
    assert.equal((await get(f, bildQuery(300, 0, 0))).status, 200);

    held.open();
    assert.equal((await blocking).status, 200);
    assert.equal((await get(f, bildQuery(300, 11, 11))).status, 200);
  });
});

describe('a client that leaves while its resize waits for a slot', () => {
  test('its queued resize is dropped and never runs', async () => {
    const held = controlledResizer(true);
    const images = await ImageService.open(
      { ...TEST_IMAGE_SETTINGS, concurrency: 1, maxWaiting: 4 },
      { resizer: held.resizer },
    );
    const f = await startFixture({ images }, [REFERENCE_BUNDLE, bundle]);
    try {
      const blocking = get(f, bildQuery(300, 10, 10));
      while (held.calls === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      const client = new AbortController();
      const leaving = fetch(`${f.server.url}${PUBLIC}/getBild?${bildQuery(300, 21, 21)}`, {
        signal: client.signal,
      }).catch((error: unknown) => error);
      while (images.queue.stats.waiting === 0) await new Promise((resolve) => setTimeout(resolve, 5));
      client.abort();
      await leaving;
      // The server sees the connection close and takes the request out of the queue.
      const deadline = Date.now() + 5_000;
      while (images.queue.stats.waiting !== 0 && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
      assert.deepEqual(images.queue.stats, { running: 1, waiting: 0 });
      held.open();
      assert.equal((await blocking).status, 200);
      assert.equal(held.calls, 1, 'the resize of the client that left never ran');
    } finally {
      held.open();
      await f.stop();
    }
  });
});

describe('the variant cache', () => {
  const cacheDir = s.dir();

  test('a hit does not resize again; concurrent identical requests resize once', async () => {
    const counting = controlledResizer();
    await withServer({ cacheDir }, { resizer: counting.resizer }, async (f) => {
      const first = dataOf(await get(f, bildQuery(300, 50, 50, ['stretch'])));
      const second = dataOf(await get(f, bildQuery(300, 50, 50, ['stretch'])));
      assert.deepEqual(second, first);
      // Equivalent lists share the variant: background does nothing for stretch.
      dataOf(await get(f, bildQuery(300, 50, 50, ['stretch', 'background'])));
      assert.equal(counting.calls, 1);
      const together = await Promise.all(
        Array.from({ length: 6 }, () => get(f, bildQuery(300, 70, 20, ['crop']))),
      );
      assert.ok(together.every((a) => a.status === 200));
      assert.equal(new Set(together.map((a) => field(a.text, 'data'))).size, 1);
      assert.equal(counting.calls, 2);
    });
  });

  test('the cache survives a restart of the server', async () => {
    const counting = controlledResizer();
    await withServer({ cacheDir }, { resizer: counting.resizer }, async (f) => {
      const answer = await get(f, bildQuery(300, 50, 50, ['stretch']));
      assert.equal(answer.status, 200);
      assert.equal(counting.calls, 0);
    });
  });

  test('a re-import of a changed image gets new variants', async () => {
    const counting = controlledResizer();
    await withServer({ cacheDir }, { resizer: counting.resizer }, async (f) => {
      const before = await decode(dataOf(await get(f, bildQuery(300, 50, 50, ['stretch']))));
      assert.equal(counting.calls, 0);
      assertColour(before.pixel(2, 25), RED, 'old image');
      await importFolder(f.store, bildBundle(await halves(200, 100)));
      const after = await decode(dataOf(await get(f, bildQuery(300, 50, 50, ['stretch']))));
      assert.equal(counting.calls, 1);
      assertColour(after.pixel(20, 25), RED, 'new image, left half');
      assertColour(after.pixel(30, 25), BLUE, 'new image, right half (was green)');
    });
  });
});
