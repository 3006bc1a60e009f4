import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  ENDPOINTS,
  findEndpoint,
  findOperation,
  OPERATIONS,
  operationsAt,
  PUBLIC_V6,
  resultTypeName,
  SCOOP_V5,
  SCOOP_V6,
  SCOOP_V7,
} from './operations.ts';
import type { ValueType } from './schema.ts';

/** service-spec.md 4.3: operation → path group, parameters (name: type) and result element. */
const SPEC_4_3: readonly {
  name: string;
  path: string;
  params: readonly [string, string][];
  result: string;
}[] = [
  {
    name: 'getArtikelDetails',
    path: '/scoop/api/v6/scoop.asmx',
    params: [['artikelID', 'int']],
    result: 'artikelDetails',
  },
  {
    name: 'getBild',
    path: '/scoop/api/v6/public.asmx',
    params: [
      ['bildID', 'int'],
      ['width', 'int'],
      ['height', 'int'],
      ['resizeModes', 'ArrayOfResizeMode'],
    ],
    result: 'bild',
  },
  { name: 'getNewsletter', path: '/scoop/api/v7/scoop.asmx', params: [], result: 'newsletter' },
  { name: 'getAnhang', path: '/scoop/api/v6/public.asmx', params: [['anhangID', 'int']], result: 'anhang' },
  {
    name: 'getAbonnierteNewsletter',
    path: '/scoop/api/v6/scoop.asmx',
    params: [['email', 'string']],
    result: 'newsletter',
  },
  {
    name: 'getCityAppBereich',
    path: '/scoop/api/v7/scoop.asmx',
    params: [['cityAppBereichID', 'int']],
    result: 'cityAppBereich',
  },
  {
    name: 'checkAnhangVorhanden',
    path: '/scoop/api/v5/scoop.asmx',
    params: [['anhangID', 'int']],
    result: 'anhangVorhanden',
  },
  {
    name: 'getBereich',
    path: '/scoop/api/v6/public.asmx',
    params: [['bereichID', 'int']],
    result: 'bereich',
  },
];

function typeName(type: ValueType): string {
  return type.name;
}

describe('resultTypeName (service-spec.md 4.2 rule 2)', () => {
  test('names all 8 result types as the reference does', () => {
    const expected: Record<string, string> = {
      checkAnhangVorhanden: 'wsCheckAnhangVorhandenResponse',
      getArtikelDetails: 'wsGetArtikelDetailsResponse',
      getAbonnierteNewsletter: 'wsGetAbonnierteNewsletterResponse',
      getNewsletter: 'wsGetNewsletterResponse',
      getCityAppBereich: 'wsGetCityAppBereichResponse',
      getBild: 'wsGetBildResponse',
      getAnhang: 'wsGetAnhangResponse',
      getBereich: 'wsGetBereichResponse',
    };
    for (const [operation, name] of Object.entries(expected)) {
      assert.equal(resultTypeName(operation), name, operation);
    }
  });

  test('does not repeat the get prefix and upper-cases only the first letter', () => {
    assert.equal(resultTypeName('getX'), 'wsGetXResponse');
    assert.equal(resultTypeName('checkFoo'), 'wsCheckFooResponse');
  });

  test('each operation’s result type carries that name and holds exactly the spec’s result element', () => {
    for (const spec of SPEC_4_3) {
      const operation = OPERATIONS.find((o) => o.name === spec.name)!;
      assert.equal(operation.result.kind, 'complex');
      assert.equal(operation.result.name, resultTypeName(spec.name));
      assert.deepEqual(
        operation.result.fields.map((f) => f.name),
        [spec.result],
        spec.name,
      );
    }
  });
});

describe('endpoints (service-spec.md 4.1)', () => {
  test('the four endpoint paths, in the reference’s order', () => {
    assert.deepEqual(
      ENDPOINTS.map((e) => e.path),
      [
        '/scoop/api/v5/scoop.asmx',
        '/scoop/api/v6/scoop.asmx',
        '/scoop/api/v7/scoop.asmx',
        '/scoop/api/v6/public.asmx',
      ],
    );
    assert.deepEqual(ENDPOINTS, [SCOOP_V5, SCOOP_V6, SCOOP_V7, PUBLIC_V6]);
  });

  test('groups, versions, service names and whether a token is required', () => {
    assert.deepEqual(
      ENDPOINTS.map((e) => [e.group, e.version, e.serviceName, e.requiresToken]),
      [
        ['scoop', 5, 'scoop', true],
        ['scoop', 6, 'scoop', true],
        ['scoop', 7, 'scoop', true],
        ['public', 6, 'public', false],
      ],
    );
  });

  test('findEndpoint matches the exact path only', () => {
    assert.equal(findEndpoint('/scoop/api/v6/public.asmx'), PUBLIC_V6);
    assert.equal(findEndpoint('/scoop/api/v5/scoop.asmx'), SCOOP_V5);
    for (const path of [
      '/scoop/api/v7/public.asmx',
      '/scoop/api/v6/public.asmx/',
      '/scoop/api/v6/PUBLIC.asmx',
      '/scoop/api/v6/public.asmx/getBereich',
      '',
    ]) {
      assert.equal(findEndpoint(path), undefined, path);
    }
  });
});

describe('operations (service-spec.md 4.3)', () => {
  test('the 8 operations, each once', () => {
    assert.deepEqual(OPERATIONS.map((o) => o.name).sort(), SPEC_4_3.map((s) => s.name).sort());
  });

  for (const spec of SPEC_4_3) {
    test(`${spec.name} is offered at ${spec.path} with the spec’s parameters`, () => {
      const operation = OPERATIONS.find((o) => o.name === spec.name)!;
      assert.equal(operation.endpoint.path, spec.path);
      assert.deepEqual(
        operation.params.map((p) => [p.name, typeName(p.type)]),
        spec.params,
      );
    });
  }

  test('each endpoint offers exactly the operations of the spec table', () => {
    for (const endpoint of ENDPOINTS) {
      const expected = SPEC_4_3.filter((s) => s.path === endpoint.path).map((s) => s.name);
      assert.deepEqual(
        operationsAt(endpoint)
          .map((o) => o.name)
          .sort(),
        expected.sort(),
        endpoint.path,
      );
    }
    assert.deepEqual(
      operationsAt(SCOOP_V5).map((o) => o.name),
      ['checkAnhangVorhanden'],
    );
    assert.deepEqual(
      operationsAt(SCOOP_V7)
        .map((o) => o.name)
        .sort(),
      ['getCityAppBereich', 'getNewsletter'],
    );
  });

  test('findOperation needs the right endpoint and the exact name', () => {
    assert.equal(findOperation(PUBLIC_V6, 'getBereich')?.name, 'getBereich');
    assert.equal(findOperation(SCOOP_V6, 'getBereich'), undefined);
    assert.equal(findOperation(PUBLIC_V6, 'GetBereich'), undefined);
    assert.equal(findOperation(SCOOP_V6, 'getNewsletter'), undefined);
    assert.equal(findOperation(SCOOP_V7, 'getNewsletter')?.endpoint, SCOOP_V7);
    assert.equal(findOperation(PUBLIC_V6, 'getFoo'), undefined);
  });

  test('getBild.resizeModes is a list of resizeMode items with the five values (spec 4.4)', () => {
    const resizeModes = findOperation(PUBLIC_V6, 'getBild')!.params.find((p) => p.name === 'resizeModes')!;
    assert.equal(resizeModes.type.kind, 'array');
    if (resizeModes.type.kind !== 'array') return;
    assert.equal(resizeModes.type.itemName, 'resizeMode');
    const item = resizeModes.type.item;
    assert.equal(item.kind, 'enum');
    if (item.kind !== 'enum') return;
    assert.deepEqual(item.values, ['standard', 'crop', 'fit', 'stretch', 'background']);
  });
});
