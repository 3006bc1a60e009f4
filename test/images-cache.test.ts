/**
 * The variant cache as several servers see it: two servers (standing for two worker
 * processes or two instances) on one variant folder, each with its own store of the same
 * content. ETags of large (streamed) variants, invalidation on re-import and deletion,
 * and what `scoop serve` does with a variant folder it cannot use.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { readdirSync, statSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { before, describe, test } from 'node:test';
import sharp from 'sharp';
import { scoopArgs } from '../bench/node-flags.ts';
import { ImageService } from '../src/images/image-service.ts';
import type { ImageSettings } from '../src/images/image-settings.ts';
import { type Resizer, resizeImage } from '../src/images/resize.ts';
import { bundleJson, importFolder, pattern, scratch } from './support/bundles.ts';
import { type Fixture, REFERENCE_BUNDLE, startFixture } from './support/fixture-server.ts';
import {
  assertColour,
  BLUE,
  bands,
  decode,
  GREEN,
  halves,
  RED,
  TEST_IMAGE_SETTINGS,
} from './support/images.ts';

const s = scratch();
const PUBLIC = '/scoop/api/v6/public.asmx';
const LARGE = 900;

/** Noise, so that its PNG variants stay large: a 900×900 variant is about 2.4 MB. */
async function noisePng(side: number): Promise<Buffer> {
  return sharp(pattern(side * side * 3, 7), { raw: { width: side, height: side, channels: 3 } })
    .png({ compressionLevel: 1 })
    .toBuffer();
}

let noise: Buffer;
let markt: Buffer;

/** An upsert bundle of images, removing the ids in `deleted`. */
function bildBundle(bilder: Record<number, Buffer>, deleted: number[] = []): string {
  const records = Object.keys(bilder).map((id) => ({
    bildID: Number(id),
    file: `files/${id}.png`,
    filename: `${id}.png`,
    mimetype: 'image/png',
  }));
  const files = Object.fromEntries(Object.entries(bilder).map(([id, bytes]) => [`files/${id}.png`, bytes]));
  const loeschen = deleted.length > 0 ? { loeschen: { bilder: deleted } } : {};
  return s.bundle(bundleJson({ bilder: records, ...loeschen }), files);
}

before(async () => {
  noise = await noisePng(LARGE + 20);
  markt = await bands(200, 100);
});

function counting() {
  const state = { calls: 0 };
  const resizer: Resizer = async (input, request, limits) => {
    state.calls++;
    return resizeImage(input, request, limits);
  };
  return Object.assign(state, { resizer });
}

interface Server {
  readonly f: Fixture;
  readonly images: ImageService;
  readonly resizes: { calls: number };
}

/** A server with its own store (content from `bundle`) and an ImageService on `cacheDir`. */
async function server(
  cacheDir: string,
  bundle: string,
  settings: Partial<ImageSettings> = {},
): Promise<Server> {
  const resizes = counting();
  const images = await ImageService.open(
    { ...TEST_IMAGE_SETTINGS, cacheDir, ...settings },
    { resizer: resizes.resizer },
  );
  // Without the whole-answer cache, every request reaches the variant cache.
  const f = await startFixture({ images, responseCacheBytes: 0 }, [REFERENCE_BUNDLE, bundle]);
  return { f, images, resizes };
}

async function stop(...servers: Server[]): Promise<void> {
  for (const { f, images } of servers) {
    await f.stop();
    images.close();
  }
}

interface Answer {
  readonly status: number;
  readonly etag: string | null;
  readonly data: Buffer;
}

async function get(server: Server, query: string, headers: Record<string, string> = {}): Promise<Answer> {
  const res = await fetch(`${server.f.server.url}${PUBLIC}/getBild?${query}`, { headers });
  const text = await res.text();
  const data = Buffer.from(/<data>([^<]*)<\/data>/.exec(text)?.[1] ?? '', 'base64');
  return { status: res.status, etag: res.headers.get('etag'), data };
}

const bild = (id: number, width: number, height: number, mode = 'stretch') =>
  `bildID=${id}&width=${width}&height=${height}&resizeModes=${mode}`;

describe('a variant over 1 MiB has one ETag, made or read, in every process', () => {
  test('first answer, later answers and another server agree; If-None-Match gives 304', async () => {
    const dir = s.dir();
    const bundle = bildBundle({ 400: noise });
    const a = await server(dir, bundle);
    const b = await server(dir, bundle);
    try {
      const first = await get(a, bild(400, LARGE, LARGE));
      assert.equal(first.status, 200);
      assert.ok(first.data.length > 1024 * 1024, `${first.data.length} bytes: more than 1 MiB`);
      assert.ok(first.etag);
      const later = await get(a, bild(400, LARGE, LARGE));
      const elsewhere = await get(b, bild(400, LARGE, LARGE));
      assert.equal(a.resizes.calls + b.resizes.calls, 1, 'made once, then read from the file');
      assert.deepEqual(later.data, first.data);
      assert.deepEqual(elsewhere.data, first.data);
      assert.equal(later.etag, first.etag);
      assert.equal(elsewhere.etag, first.etag);
      for (const s of [a, b]) {
        const again = await get(s, bild(400, LARGE, LARGE), { 'if-none-match': first.etag });
        assert.equal(again.status, 304);
      }
    } finally {
      await stop(a, b);
    }
  });
});

const variantFiles = (dir: string) => readdirSync(dir).filter((name) => /^[0-9a-f]{64}\.[a-z]+$/.test(name));

describe('two servers on one variant folder', () => {
  test('together they stay within the bound, and neither breaks the other’s answers', async () => {
    const dir = s.dir();
    const bundle = bildBundle({ 300: markt });
    // A 100×50 PNG variant of the bands is about 300 bytes: room for a few.
    const bound = 1500;
    const a = await server(dir, bundle, { cacheBytes: bound });
    const b = await server(dir, bundle, { cacheBytes: bound });
    try {
      const resizes = () => a.resizes.calls + b.resizes.calls;
      for (let i = 0; i < 30; i++) {
        const [one, other] = i % 2 === 0 ? [a, b] : [b, a];
        const width = 100 + (i % 15);
        const made = await get(one, bild(300, width, 50));
        const before = resizes();
        const read = await get(other, bild(300, width, 50));
        assert.equal(resizes(), before, 'the other server reads the variant one made');
        assert.equal(made.status, 200);
        assert.deepEqual(read.data, made.data);
        const out = await decode(read.data);
        assert.deepEqual([out.width, out.height], [width, 50]);
        assertColour(out.pixel(1, 25), RED, 'left band');
        assertColour(out.pixel(width >> 1, 25), GREEN, 'middle band');
        const onDisk = variantFiles(dir).reduce((sum, f) => sum + statSync(path.join(dir, f)).size, 0);
        assert.ok(onDisk <= bound, `${onDisk} bytes on disk after request ${i}`);
        assert.deepEqual(a.images.cache.stats, b.images.cache.stats);
        assert.equal(a.images.cache.stats.bytes, onDisk);
      }
      // The 15 widths came round twice; the bound had evicted the first ones by then.
      assert.ok(resizes() > 15, `${resizes()} resizes`);
    } finally {
      await stop(a, b);
    }
  });
});

describe('a re-import removes the variants of what an image was', () => {
  test('a changed image loses its old variants on its next request; a deleted one on its next', async () => {
    const dir = s.dir();
    const a = await server(dir, bildBundle({ 300: markt, 301: markt }));
    const b = await server(dir, bildBundle({ 300: markt, 301: markt }));
    try {
      await get(a, bild(300, 50, 50));
      await get(a, bild(300, 60, 60));
      const old = variantFiles(dir);
      assert.equal(old.length, 2);
      // 301 has the same content as 300 (blobs are content-addressed), so it shares the variant.
      await get(b, bild(301, 50, 50));
      assert.equal(a.resizes.calls + b.resizes.calls, 2);

      const changed = bildBundle({ 300: await halves(200, 100), 301: await halves(200, 100) });
      await importFolder(a.f.store, changed);
      await importFolder(b.f.store, changed);
      const fresh = await decode((await get(a, bild(300, 50, 50))).data);
      assertColour(fresh.pixel(30, 25), BLUE, 'new content, right half (was green)');
      // 301 still had the old content as far as the index knew: its variants stay until it is asked for.
      assert.equal(variantFiles(dir).filter((f) => old.includes(f)).length, 2);
      await get(b, bild(301, 50, 50));
      assert.deepEqual(
        variantFiles(dir).filter((f) => old.includes(f)),
        [],
        'no image has the old content any more: its variants are gone',
      );
      assert.equal(variantFiles(dir).length, 1);

      const without300 = bildBundle({}, [300]);
      await importFolder(a.f.store, without300);
      await importFolder(b.f.store, without300);
      assert.equal(variantFiles(dir).length, 1, '301 still has that content');
      assert.equal((await get(b, bild(300, 50, 50))).status, 404);
      assert.equal(variantFiles(dir).length, 1);
      await importFolder(a.f.store, bildBundle({}, [301]));
      assert.equal((await get(a, bild(301, 50, 50))).status, 404);
      assert.deepEqual(variantFiles(dir), [], 'neither image exists: nothing of them is kept');
    } finally {
      await stop(a, b);
    }
  });
});

describe('scoop serve with a variant folder it cannot use', () => {
  const ROOT = path.resolve('.');

  /** The test's environment without the settings each case sets itself (the old folder name too). */
  function envWithoutStoreOrVariantFolder(): NodeJS.ProcessEnv {
    const {
      SCOOP_DB: _db,
      SCOOP_VARIANT_DIR: _old,
      SCOOP_VARIANT_CACHE_DIR: _dir,
      ...inherited
    } = process.env;
    return inherited;
  }

  function serve(args: string[], env: Record<string, string>) {
    const inherited = envWithoutStoreOrVariantFolder();
    return new Promise<{ code: number | null; stderr: string }>((resolve, reject) => {
      const child = spawn(process.execPath, scoopArgs(['serve', ...args], ROOT), {
        cwd: s.root,
        env: { ...inherited, SCOOP_PORT: '0', SCOOP_ADMIN_PORT: 'off', ...env },
        stdio: ['ignore', 'ignore', 'pipe'],
      });
      let stderr = '';
      child.stderr.setEncoding('utf8').on('data', (text: string) => {
        stderr += text;
      });
      child.on('error', reject).on('close', (code) => resolve({ code, stderr }));
      setTimeout(() => child.kill('SIGTERM'), 30_000).unref();
    });
  }

  for (const [setting, workers] of [
    ['SCOOP_VARIANT_CACHE_DIR', '1'],
    ['SCOOP_VARIANT_CACHE_DIR', '2'],
    ['SCOOP_VARIANT_DIR', '1'],
  ] as const) {
    test(`refuses to start with one line naming SCOOP_VARIANT_CACHE_DIR and the folder (${setting}, workers: ${workers})`, async () => {
      const blocker = path.join(s.dir(), 'a-file');
      writeFileSync(blocker, '');
      const dir = path.join(blocker, 'variants');
      const run = await serve([], {
        SCOOP_DB: path.join(s.dir(), 'scoop.db'),
        [setting]: dir,
        SCOOP_WORKERS: workers,
      });
      assert.equal(run.code, 1);
      const lines = run.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, run.stderr);
      assert.match(lines[0]!, /^scoop serve: SCOOP_VARIANT_CACHE_DIR .* cannot be used/);
      assert.ok(lines[0]!.includes(dir), lines[0]);
      assert.match(lines[0]!, /ENOTDIR/);
      assert.match(lines[0]!, /SCOOP_VARIANT_CACHE_BYTES=0/);
    });
  }

  test('with SCOOP_VARIANT_CACHE_BYTES=0 the same folder setting is not used, and it serves', async () => {
    const blocker = path.join(s.dir(), 'a-file');
    writeFileSync(blocker, '');
    const inherited = envWithoutStoreOrVariantFolder();
    const child = spawn(process.execPath, scoopArgs(['serve'], ROOT), {
      cwd: s.root,
      env: {
        ...inherited,
        SCOOP_PORT: '0',
        SCOOP_ADMIN_PORT: 'off',
        SCOOP_DB: path.join(s.dir(), 'scoop.db'),
        SCOOP_VARIANT_CACHE_DIR: path.join(blocker, 'variants'),
        SCOOP_VARIANT_CACHE_BYTES: '0',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    try {
      let out = '';
      await new Promise<void>((resolve, reject) => {
        child.stdout.setEncoding('utf8').on('data', (text: string) => {
          out += text;
          if (out.includes('scoop listening on')) resolve();
        });
        child.on('close', (code) => reject(new Error(`exited with ${code}: ${out}`)));
      });
    } finally {
      child.kill('SIGTERM');
    }
  });
});
