/**
 * The dependency rules of src/ (docs/architecture.md), checked by `npm run deps` (part of
 * `npm test`): each folder may import only the folders listed for it, besides itself and
 * node/npm packages; no file anywhere takes part in an import cycle. Type-only imports
 * count. Tests beside the code (src/**\/*.test.ts) may import anything, test/support
 * included: they are left out of the folder rules, not out of the cycle rule.
 */

const TESTS = '\\.test\\.ts$';

/** The folders of the table; a file elsewhere in src/ is refused until its folder is added. */
const FOLDERS = [
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
  'server',
  'cli',
];

/** The rule for one folder: it may import itself and `allowed`, nothing else under src/. */
function layer(folder, allowed) {
  const arrow = allowed.length === 0 ? 'nothing' : allowed.join(', ');
  return {
    name: `${folder}-imports-only-what-is-below`,
    comment: `src/${folder}/ may import only: ${arrow} (docs/architecture.md)`,
    severity: 'error',
    from: { path: `^src/${folder}/`, pathNot: TESTS },
    to: { path: '^src/', pathNot: `^src/(${[folder, ...allowed].join('|')})/` },
  };
}

export default {
  forbidden: [
    // contract → nothing
    layer('contract', []),
    // xml → nothing
    layer('xml', []),
    // support → nothing (generic helpers that know nothing of scoop)
    layer('support', []),
    // cache → support
    layer('cache', ['support']),
    // observe → nothing
    layer('observe', []),
    // auth → contract
    layer('auth', ['contract']),
    // store → contract, xml, auth, cache, support
    layer('store', ['contract', 'xml', 'auth', 'cache', 'support']),
    // images → contract, xml, store, cache, support
    layer('images', ['contract', 'xml', 'store', 'cache', 'support']),
    // protocol → contract, xml
    layer('protocol', ['contract', 'xml']),
    // service → contract, store, images
    layer('service', ['contract', 'store', 'images']),
    // describe → contract, xml, protocol
    layer('describe', ['contract', 'xml', 'protocol']),
    // migrate → contract, xml, protocol, store, observe, support (the tools that talk to a service over its wire)
    layer('migrate', ['contract', 'xml', 'protocol', 'store', 'observe', 'support']),
    // prepare → contract, xml, protocol, service, store, support (answers an import renders ahead)
    layer('prepare', ['contract', 'xml', 'protocol', 'service', 'store', 'support']),
    // server → everything above, not cli
    layer(
      'server',
      FOLDERS.filter((f) => f !== 'server' && f !== 'cli'),
    ),
    // cli → everything: no rule.
    {
      name: 'store-through-its-interface',
      comment:
        "service → store and images → store mean the store's interface (the files directly in src/store/), not its sub-folders bundle/, sqlite/, postgres/",
      severity: 'error',
      from: { path: '^src/(service|images|prepare)/', pathNot: TESTS },
      to: { path: '^src/store/[^/]+/' },
    },
    {
      name: 'src-folder-in-the-table',
      comment:
        'every file of src/ lives in a folder of the table above; add a new folder and its arrows here',
      severity: 'error',
      from: { path: '^src/', pathNot: `^src/(${FOLDERS.join('|')})/` },
      to: { path: '^src/' },
    },
    {
      name: 'src-not-to-tests-or-tools',
      comment: 'the service never imports test/, bench/ or scripts/',
      severity: 'error',
      from: { path: '^src/', pathNot: TESTS },
      to: { path: '^(test|bench|scripts)/' },
    },
    {
      name: 'no-cycles',
      comment: 'no file takes part in an import cycle, type-only imports and tests included',
      severity: 'error',
      from: {},
      to: { circular: true },
    },
    {
      name: 'resolvable',
      comment: 'every import resolves, so no rule above passes for want of a target',
      severity: 'error',
      from: {},
      to: { couldNotResolve: true },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    exclude: { path: '^(test/fixtures|test/wire|dist)/' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
  },
};
