/**
 * bundle-format.md, "Files": a binary whose bytes contradict its declared mimetype. An
 * image is refused, an attachment imported with a warning; both name the record. Each
 * test runs with the files hashed on the import's thread and on the digest worker
 * (file-digests.ts), which judges them there.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { assertRefused, bundleJson, type Files, scratch } from '../../../test/support/bundles.ts';
import { closeBundle, type ReadOptions, readBundle } from './read-bundle.ts';

const s = scratch();

const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(2000, 7)]);
const PNG = Buffer.concat([Buffer.from('\x89PNG\r\n\x1a\n', 'latin1'), Buffer.alloc(2000, 7)]);
const SVG = '<?xml version="1.0"?>\n<svg xmlns="http://www.w3.org/2000/svg" width="10" height="10"/>\n';

for (const [way, digestOnWorkerFrom] of [
  ["on the import's thread", undefined],
  ['on the digest worker', 1],
] as const) {
  /** The warnings of the bundle built from `entries` (refusals are thrown). */
  async function warnings(entries: Record<string, unknown>, files: Files, options?: ReadOptions) {
    const bundle = await readBundle(s.bundle(bundleJson(entries), files), { ...options, digestOnWorkerFrom });
    await closeBundle(bundle);
    return bundle.warnings;
  }

  describe(`bilder: bytes that contradict the mimetype are refused (${way})`, () => {
    test('a JPEG declared image/png is refused, naming the record and both types', async () => {
      await assertRefused(
        warnings(
          { bilder: [{ bildID: 7, file: 'files/foto.png', mimetype: 'image/png' }] },
          { 'files/foto.png': JPEG },
        ),
        'bilder[0] (bildID 7).mimetype',
        /"image\/png" contradicts the file "files\/foto\.png", whose bytes are image\/jpeg$/,
      );
    });

    test('a PNG declared as SVG, and an SVG declared as PNG, are refused', async () => {
      await assertRefused(
        warnings(
          {
            bilder: [
              { bildID: 1, file: 'a.png', mimetype: 'image/png' },
              { bildID: 2, file: 'a.png', mimetype: 'image/svg+xml' },
            ],
          },
          { 'a.png': PNG },
        ),
        'bilder[1] (bildID 2).mimetype',
        /whose bytes are image\/png/,
      );
      await assertRefused(
        warnings({ bilder: [{ bildID: 3, file: 'p.svg', mimetype: 'IMAGE/PNG' }] }, { 'p.svg': SVG }),
        'bilder[0] (bildID 3).mimetype',
        /whose bytes are image\/svg\+xml/,
      );
    });

    test('also for a file opened again when it is hashed (beyond the files held open)', async () => {
      await assertRefused(
        warnings(
          { bilder: [{ bildID: 7, file: 'foto.png', mimetype: 'image/png' }] },
          { 'foto.png': JPEG },
          { heldFiles: 0 },
        ),
        'bilder[0] (bildID 7).mimetype',
      );
    });

    test('matching, unlisted or absent types and unrecognisable bytes contradict nothing', async () => {
      const found = await warnings(
        {
          bilder: [
            { bildID: 1, file: 'a.jpg', mimetype: 'image/jpeg' },
            { bildID: 2, file: 'a.jpg', mimetype: 'image/jpg; q=1' },
            { bildID: 3, file: 'b.png', mimetype: 'image/png' },
            { bildID: 4, file: 'c.svg', mimetype: 'image/svg+xml' },
            { bildID: 5, file: 'a.jpg', mimetype: 'application/octet-stream' },
            { bildID: 6, file: 'a.jpg' },
            { bildID: 7, file: 'kaputt.png', mimetype: 'image/png' },
            { bildID: 8, file: 'leer.png', mimetype: 'image/png' },
          ],
        },
        { 'a.jpg': JPEG, 'b.png': PNG, 'c.svg': SVG, 'kaputt.png': 'kein Bild', 'leer.png': '' },
      );
      assert.deepEqual(found, []);
    });
  });

  describe(`anhaenge: the type is free, so a contradiction is a warning (${way})`, () => {
    test('a JPEG declared application/pdf is imported, with a warning naming the record', async () => {
      const found = await warnings(
        {
          anhaenge: [
            { anhangID: 1, file: 'plan.pdf', mimetype: 'application/pdf' },
            { anhangID: 2, file: 'satzung.pdf', mimetype: 'application/pdf' },
            { anhangID: 3, file: 'plan.pdf', mimetype: 'text/plain' },
          ],
        },
        { 'plan.pdf': JPEG, 'satzung.pdf': '%PDF-1.7\n' },
      );
      assert.deepEqual(found, [
        'anhaenge[0] (anhangID 1).mimetype: "application/pdf" contradicts the file "plan.pdf", whose bytes are image/jpeg; imported as declared',
      ]);
    });
  });
}
