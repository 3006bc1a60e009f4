/**
 * Unknown operations, prototype names, wrong endpoints, and paths that must never serve a file.
 */
import { hostileTheme } from '../support/hostile-case.ts';
import {
  bytes,
  envelope,
  FORM,
  get,
  head,
  op,
  PUBLIC,
  post,
  soap11,
  soap12,
  VALID11,
  XML11,
} from '../support/hostile-requests.ts';

const { theme, add } = hostileTheme('unknown operations, wrong endpoints and path traversal');
export const operationsAndPaths = theme;

// -- unknown operations, prototype names and wrong endpoints.
add(
  'soap11 prototype name __proto__ as operation',
  'soap11',
  'UNKNOWN_OPERATION',
  soap11(PUBLIC, envelope('1.1', op('__proto__'))),
);
add(
  'soap12 constructor as operation',
  'soap12',
  'UNKNOWN_OPERATION',
  soap12(PUBLIC, envelope('1.2', op('constructor'))),
);
add(
  'soap11 operation of another endpoint',
  'soap11',
  'UNKNOWN_OPERATION',
  soap11(PUBLIC, envelope('1.1', op('getNewsletter'))),
);
add('soap12 empty Body', 'soap12', 'UNKNOWN_OPERATION', soap12(PUBLIC, envelope('1.2', '')));
add('httpget __proto__ as operation', 'httpget', 'UNKNOWN_OPERATION', get(`${PUBLIC}/__proto__?bereichID=1`));
add('httpget constructor as operation', 'httpget', 'UNKNOWN_OPERATION', get(`${PUBLIC}/constructor`));
add('httpget hasOwnProperty as operation', 'httpget', 'UNKNOWN_OPERATION', get(`${PUBLIC}/hasOwnProperty`));
add(
  'httppost toString as operation',
  'httppost',
  'UNKNOWN_OPERATION',
  post(`${PUBLIC}/toString`, FORM, 'bereichID=1'),
);
add(
  'httpget operation name in the wrong case',
  'httpget',
  'UNKNOWN_OPERATION',
  get(`${PUBLIC}/getbereich?bereichID=1`),
);
add(
  'httpget operation name of 5,000 characters',
  'httpget',
  'UNKNOWN_OPERATION',
  get(`${PUBLIC}/${'x'.repeat(5_000)}`),
);
add('httpget unknown API version', 'http', 'NOT_FOUND', get('/scoop/api/v8/scoop.asmx/getNewsletter'));
add(
  'httpget endpoint name in another case',
  'http',
  'NOT_FOUND',
  get('/scoop/api/v6/Public.asmx/getBereich?bereichID=1'),
);
add('httppost trailing slash on the endpoint', 'http', 'NOT_FOUND', post(`${PUBLIC}/`, FORM, 'bereichID=1'));
add(
  'httppost SOAP envelope to an operation path',
  'httppost',
  'UNSUPPORTED_MEDIA_TYPE',
  post(`${PUBLIC}/getBereich`, XML11, VALID11),
);

// -- path traversal and files that must never be served.
for (const [name, target, code] of [
  ['dot-dot segments to /etc/passwd', '/../../../../etc/passwd', 'NOT_FOUND'],
  ['dot-dot after the endpoint', `${PUBLIC}/../../../../package.json`, 'NOT_FOUND'],
  ['encoded dot-dot segments', '/scoop/api/v6/%2e%2e/%2e%2e/%2e%2e/package.json', 'NOT_FOUND'],
  ['encoded dot-dot as an operation', `${PUBLIC}/%2e%2e%2f%2e%2e%2fpackage.json`, 'UNKNOWN_OPERATION'],
  ['a bare .. as the operation', `${PUBLIC}/..`, 'UNKNOWN_OPERATION'],
  ['double slash before the path', `//scoop/api/v6/public.asmx/getBereich?bereichID=1`, 'NOT_FOUND'],
  ['double slash before the operation', `${PUBLIC}//getBereich?bereichID=1`, 'NOT_FOUND'],
  ['backslash before the operation', `${PUBLIC}\\getBereich?bereichID=1`, 'NOT_FOUND'],
  ['encoded slash before the operation', `${PUBLIC}%2fgetBereich?bereichID=1`, 'NOT_FOUND'],
  ['path parameter on the endpoint', `${PUBLIC};jsessionid=1/getBereich?bereichID=1`, 'NOT_FOUND'],
  ['segment after the operation', `${PUBLIC}/getBereich/..`, 'NOT_FOUND'],
  ['encoded NUL after the operation', `${PUBLIC}/getBereich%00.xml`, 'UNKNOWN_OPERATION'],
  ['the database file', '/data/scoop.db', 'NOT_FOUND'],
  ['a module in node_modules', '/node_modules/saxes/package.json', 'NOT_FOUND'],
  ['package.json', '/package.json', 'NOT_FOUND'],
  ['.git/config', '/.git/config', 'NOT_FOUND'],
  ['.env', '/.env', 'NOT_FOUND'],
  ['a source file', '/src/server/app.ts', 'NOT_FOUND'],
  ['a bundle image', '/test/fixtures/reference-bundle/files/bilder/markt.png', 'NOT_FOUND'],
  ['encoded traversal from the root', '/%2e%2e%2f%2e%2e%2fetc%2fpasswd', 'NOT_FOUND'],
] as const) {
  add(`http path traversal: ${name}`, code === 'NOT_FOUND' ? 'http' : 'httpget', code, get(target));
}
add(
  'http backslash path',
  'http',
  'BAD_REQUEST',
  bytes(head('GET \\..\\..\\package.json HTTP/1.1', ['Host: localhost', 'Connection: close'])),
);
add('http POST to package.json', 'http', 'NOT_FOUND', post('/package.json', FORM, 'a=1'));
