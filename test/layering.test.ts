/**
 * The dependency rules (.dependency-cruiser.mjs, run by `npm run deps`) checked on a
 * small tree written for the purpose: one file per ordered pair of src/ folders, each
 * importing the other folder, must give exactly the violations the layering table below
 * forbids (the table of docs/architecture.md, kept here a second time on purpose: a rule
 * loosened by mistake fails this test), and the other rules each catch their case.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const CRUISER = path.join(ROOT, 'node_modules', 'dependency-cruiser', 'bin', 'dependency-cruise.mjs');

/** The folders below server/, which may import them all. */
const BELOW_SERVER = [
  'contract',
  'xml',
  'support',
  'cache',
  'observe',
  'auth',
  'store',
  'images',
  'protocol',
  'service',
  'describe',
  'migrate',
  'prepare',
];

/** What each folder may import besides itself. */
const MAY_IMPORT: Readonly<Record<string, readonly string[]>> = {
  contract: [],
  xml: [],
  support: [],
  cache: ['support'],
  observe: [],
  auth: ['contract'],
  store: ['contract', 'xml', 'auth', 'cache', 'support'],
  images: ['contract', 'xml', 'store', 'cache', 'support'],
  protocol: ['contract', 'xml'],
  service: ['contract', 'store', 'images'],
  describe: ['contract', 'xml', 'protocol'],
  migrate: ['contract', 'xml', 'protocol', 'store', 'observe', 'support'],
  prepare: ['contract', 'xml', 'protocol', 'service', 'store', 'support'],
  server: BELOW_SERVER,
  cli: [...BELOW_SERVER, 'server'],
};
const FOLDERS = Object.keys(MAY_IMPORT);

/** The other rules' cases: files (path → imports) and the violations they must give. */
const CASES: readonly { files: Record<string, string>; expected: readonly string[] }[] = [
  {
    // A type-only import counts like any other.
    files: {
      'src/xml/typed.ts': "import type { Leaf } from '../contract/leaf.ts';\nexport type T = Leaf;\n",
    },
    expected: ['xml-imports-only-what-is-below src/xml/typed.ts → src/contract/leaf.ts'],
  },
  {
    // Tests beside the code may import anything, test/support included…
    files: {
      'src/xml/reader.test.ts':
        "import { leaf } from '../server/leaf.ts';\nimport { help } from '../../test/support/help.ts';\nexport const t = [leaf, help];\n",
      'test/support/help.ts': 'export const help = 1;\n',
    },
    expected: [],
  },
  {
    // …but not take part in a cycle; nor may any other file.
    files: {
      'src/store/one.ts': "import { two } from './two.ts';\nexport const one = () => two;\n",
      'src/store/two.ts': "import { one } from './one.ts';\nexport const two = () => one;\n",
      'src/protocol/cycle.test.ts': "import { peer } from './peer.ts';\nexport const self = () => peer;\n",
      'src/protocol/peer.ts': "import { self } from './cycle.test.ts';\nexport const peer = () => self;\n",
    },
    // A cycle is reported once, at its first file.
    expected: [
      'no-cycles src/store/one.ts → src/store/two.ts',
      'no-cycles src/protocol/cycle.test.ts → src/protocol/peer.ts',
    ],
  },
  {
    files: {
      'src/plugins/extra.ts': "import { leaf } from '../contract/leaf.ts';\nexport const h = leaf;\n",
    },
    expected: ['src-folder-in-the-table src/plugins/extra.ts → src/contract/leaf.ts'],
  },
  {
    files: {
      'src/cache/uses-test.ts':
        "import { help } from '../../test/support/help.ts';\nexport const u = help;\n",
    },
    expected: ['src-not-to-tests-or-tools src/cache/uses-test.ts → test/support/help.ts'],
  },
  {
    files: {
      'src/store/bundle/bundle.ts': 'export const emailKey = 1;\n',
      'src/service/email.ts':
        "import { emailKey } from '../store/bundle/bundle.ts';\nexport const e = emailKey;\n",
      'src/server/email.ts':
        "import { emailKey } from '../store/bundle/bundle.ts';\nexport const e = emailKey;\n",
    },
    expected: ['store-through-its-interface src/service/email.ts → src/store/bundle/bundle.ts'],
  },
  {
    files: { 'src/observe/typo.ts': "import { gone } from './missing.ts';\nexport const t = gone;\n" },
    expected: ['resolvable src/observe/typo.ts → ./missing.ts'],
  },
];

let tree: string;
/** The violations found in the tree, as `rule from → to`. */
let found: string[];
/** What `npm run deps` (package.json's script, run in the tree) answered. */
let deps: { status: number | null; output: string };

/** The pair tree: every folder's leaf, and one file per folder importing each other folder's leaf. */
const PAIRS: Readonly<Record<string, string>> = Object.fromEntries(
  FOLDERS.flatMap((folder) => [
    [`src/${folder}/leaf.ts`, 'export type Leaf = number;\nexport const leaf: Leaf = 1;\n'],
    ...FOLDERS.filter((other) => other !== folder).map((other) => [
      `src/${folder}/uses-${other}.ts`,
      `import { leaf } from '../${other}/leaf.ts';\nexport const x = leaf;\n`,
    ]),
  ]),
);

function forbiddenPairs(): string[] {
  return FOLDERS.flatMap((folder) =>
    FOLDERS.filter((other) => other !== folder && !MAY_IMPORT[folder]!.includes(other)).map(
      (other) => `${folder}-imports-only-what-is-below src/${folder}/uses-${other}.ts → src/${other}/leaf.ts`,
    ),
  ).sort();
}

before(() => {
  tree = mkdtempSync(path.join(tmpdir(), 'scoop-layering-'));
  const files: Record<string, string> = Object.assign({}, PAIRS, ...CASES.map((c) => c.files));
  files['tsconfig.json'] = JSON.stringify({
    compilerOptions: { module: 'NodeNext', moduleResolution: 'NodeNext', allowImportingTsExtensions: true },
  });
  files['.dependency-cruiser.mjs'] = readFileSync(path.join(ROOT, '.dependency-cruiser.mjs'), 'utf8');
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(path.dirname(path.join(tree, name)), { recursive: true });
    writeFileSync(path.join(tree, name), text);
  }
  for (const folder of ['bench', 'scripts']) mkdirSync(path.join(tree, folder));

  const json = spawnSync(
    process.execPath,
    [CRUISER, '--config', '.dependency-cruiser.mjs', '--output-type', 'json', 'src', 'test'],
    { cwd: tree, encoding: 'utf8' },
  );
  const report = JSON.parse(json.stdout) as {
    summary: { violations: { from: string; to: string; rule: { name: string } }[] };
  };
  found = report.summary.violations.map((v) => `${v.rule.name} ${v.from} → ${v.to}`).sort();

  const script = (
    JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { scripts: { deps: string } }
  ).scripts.deps;
  const run = spawnSync('sh', ['-c', script], {
    cwd: tree,
    encoding: 'utf8',
    env: {
      ...process.env,
      PATH: `${path.join(ROOT, 'node_modules', '.bin')}${path.delimiter}${process.env.PATH}`,
    },
  });
  deps = { status: run.status, output: run.stdout + run.stderr };
});

after(() => {
  rmSync(tree, { recursive: true, force: true });
});

test('each folder may import exactly the folders of the layering table', () => {
  const pairs = found.filter((v) => Object.hasOwn(PAIRS, v.split(' ')[1]!));
  assert.deepEqual(pairs, forbiddenPairs());
});

test('type-only imports, tests, cycles, unknown folders, tools, store internals, unresolved imports', () => {
  const others = found.filter((v) => !Object.hasOwn(PAIRS, v.split(' ')[1]!));
  assert.deepEqual(others, CASES.flatMap((c) => c.expected).sort());
});

test('npm run deps fails on a violation and names it', () => {
  assert.notEqual(deps.status, 0, deps.output);
  assert.match(
    deps.output,
    /error xml-imports-only-what-is-below: src\/xml\/typed\.ts → src\/contract\/leaf\.ts/,
  );
  assert.match(deps.output, /error no-cycles: src\/store\/(one|two)\.ts/);
});
