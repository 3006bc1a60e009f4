/**
 * `scoop import` and a binary whose bytes contradict its mimetype (bundle-format.md,
 * "Files"): an attachment's is a warning on stderr, an image's a refusal, each naming the
 * record; and the summary carries the warnings through the import, on either database.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { bundleJson, importFolder, scratch } from './support/bundles.ts';
import { DATABASES } from './support/databases.ts';
import { runScoop } from './support/scoop-command.ts';
import { listeningUrl, serveProcesses } from './support/serve-process.ts';

const s = scratch();
const serves = serveProcesses();
const JPEG = Buffer.concat([Buffer.from([0xff, 0xd8, 0xff, 0xe0]), Buffer.alloc(100, 7)]);

const anhang = () =>
  s.bundle(bundleJson({ anhaenge: [{ anhangID: 4, file: 'x.pdf', mimetype: 'application/pdf' }] }), {
    'x.pdf': JPEG,
  });

test('scoop import warns of an attachment, and refuses an image, whose bytes contradict its mimetype', async () => {
  const db = s.dbPath();
  const warned = await runScoop(['import', anhang(), '--db', db]);
  assert.equal(warned.code, 0, warned.stderr);
  assert.match(
    warned.stderr,
    /^scoop import: warning: anhaenge\[0\] \(anhangID 4\)\.mimetype: "application\/pdf" contradicts the file "x\.pdf", whose bytes are image\/jpeg; imported as declared$/m,
  );
  const bild = s.bundle(bundleJson({ bilder: [{ bildID: 5, file: 'x.png', mimetype: 'image/png' }] }), {
    'x.png': JPEG,
  });
  const refused = await runScoop(['import', bild, '--db', db]);
  assert.equal(refused.code, 1, refused.stderr);
  assert.match(
    refused.stderr,
    /^import refused, nothing was changed: bilder\[0\] \(bildID 5\)\.mimetype: "image\/png" contradicts/m,
  );
});

test('serve --seed logs the warnings of the bundle it imports', async () => {
  const serve = serves.start(['--port', '0', '--db', s.dbPath(), '--seed', anhang()]);
  await listeningUrl(serve);
  const warning = serve.lines.find((l) =>
    String(l.msg).startsWith('seed: anhaenge[0] (anhangID 4).mimetype'),
  );
  assert.ok(warning, 'the warning is logged');
  assert.equal(warning.level, 'warn');
  serve.child.kill('SIGTERM');
  await serve.exited;
});

for (const db of DATABASES) {
  describe(db.name, { skip: db.skip ?? false }, () => {
    test('the import summary carries the warnings', async () => {
      const { store } = await s.open(db);
      const summary = await importFolder(store, anhang());
      assert.deepEqual(summary.warnings.length, 1);
      assert.match(summary.warnings[0]!, /^anhaenge\[0\] \(anhangID 4\)\.mimetype: /);
      assert.equal(summary.kinds.anhaenge.added, 1);
    });
  });
}
