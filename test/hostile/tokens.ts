/**
 * Tokens in the wrong place: the URL, cookies, other headers, the Body, foreign namespaces.
 */
import { hostileTheme } from '../support/hostile-case.ts';
import {
  AUTH,
  bytes,
  envelope,
  FORM,
  get,
  head,
  NS,
  op,
  PUBLIC,
  post,
  soap11,
  soap12,
  TOKEN,
  V6,
  V7,
} from '../support/hostile-requests.ts';

const { theme, add } = hostileTheme('tokens in the wrong place');
export const tokens = theme;

// -- tokens in the wrong place.
add(
  'httpget token in the query',
  'httpget',
  'TOKEN_IN_URL',
  get(`${V6}/getArtikelDetails?artikelID=100&TOKEN=${TOKEN}`),
);
add(
  'httpget percent-encoded token name in the query',
  'httpget',
  'TOKEN_IN_URL',
  get(`${V6}/getArtikelDetails?artikelID=100&%74oken=${TOKEN}`),
);
add(
  'httpget token in the query of a public operation',
  'httpget',
  'TOKEN_IN_URL',
  get(`${PUBLIC}/getBereich?bereichID=1&token=${TOKEN}`),
);
add(
  'httpget token in a GET body is not read',
  'httpget',
  'AUTH_FAILED',
  bytes(
    head(`GET ${V6}/getArtikelDetails?artikelID=100 HTTP/1.1`, [
      'Host: localhost',
      `Content-Type: ${FORM}`,
      `Content-Length: ${6 + TOKEN.length}`,
      'Connection: close',
    ]),
    `token=${TOKEN}`,
  ),
);
add(
  'httpget token in a cookie',
  'httpget',
  'AUTH_FAILED',
  get(`${V6}/getArtikelDetails?artikelID=100`, [`Cookie: token=${TOKEN}`]),
);
add(
  'httpget token in a custom header',
  'httpget',
  'AUTH_FAILED',
  get(`${V6}/getArtikelDetails?artikelID=100`, [`X-Token: ${TOKEN}`]),
);
add(
  'httpget two bearer tokens in one header',
  'httpget',
  'AUTH_FAILED',
  get(`${V7}/getNewsletter`, [`Authorization: Bearer ${TOKEN}, Bearer ${TOKEN}`]),
);
add(
  'httppost a parameter in the URL of a POST',
  'httppost',
  'PARAMETER_IN_URL',
  post(`${PUBLIC}/getBereich?bereichID=1`, FORM, ''),
);
add(
  'httppost a parameter in both the URL and the form of a POST',
  'httppost',
  'PARAMETER_IN_URL',
  post(`${PUBLIC}/getBereich?BEREICHID=2`, FORM, 'bereichID=1'),
);
add(
  'httppost an unknown name in the URL of a POST is ignored',
  'httppost',
  'ok',
  post(`${PUBLIC}/getBereich?_=1700000000`, FORM, 'bereichID=1'),
);
add(
  'httppost two token form fields',
  'httppost',
  'DUPLICATE_PARAMETER',
  post(`${V7}/getNewsletter`, FORM, `token=${TOKEN}&Token=${TOKEN}`),
);
add(
  'httppost two Authorization headers',
  'http',
  'DUPLICATE_HEADER',
  post(`${V7}/getNewsletter`, FORM, '', [`Authorization: Bearer ${TOKEN}`, `Authorization: Bearer ${TOKEN}`]),
);
add(
  'soap11 token as a Body element',
  'soap11',
  'AUTH_FAILED',
  soap11(V6, envelope('1.1', op('getArtikelDetails', `<artikelID>100</artikelID><token>${TOKEN}</token>`))),
);
add(
  'soap12 wsAuthHeader inside the Body',
  'soap12',
  'INVALID_ENVELOPE',
  soap12(V6, envelope('1.2', `${AUTH}${op('getArtikelDetails', '<artikelID>100</artikelID>')}`)),
);
add(
  'soap11 wsAuthHeader in a foreign namespace',
  'soap11',
  'AUTH_FAILED',
  soap11(
    V6,
    envelope(
      '1.1',
      op('getArtikelDetails', '<artikelID>100</artikelID>'),
      `<wsAuthHeader xmlns="urn:evil"><token>${TOKEN}</token></wsAuthHeader>`,
    ),
  ),
);
add(
  'soap12 token element in a foreign namespace',
  'soap12',
  'AUTH_FAILED',
  soap12(
    V6,
    envelope(
      '1.2',
      op('getArtikelDetails', '<artikelID>100</artikelID>'),
      `<wsAuthHeader xmlns="${NS}"><t:token xmlns:t="urn:evil">${TOKEN}</t:token></wsAuthHeader>`,
    ),
  ),
);
add(
  'soap11 token as an attribute',
  'soap11',
  'AUTH_FAILED',
  soap11(V7, envelope('1.1', op('getNewsletter'), `<wsAuthHeader xmlns="${NS}" token="${TOKEN}"/>`)),
);
add(
  'soap12 bearer header instead of wsAuthHeader',
  'soap12',
  'AUTH_FAILED',
  soap12(V7, envelope('1.2', op('getNewsletter')), [`Authorization: Bearer ${TOKEN}`]),
);
add(
  'soap11 token in the endpoint query',
  'soap11',
  'TOKEN_IN_URL',
  soap11(`${V7}?token=${TOKEN}`, envelope('1.1', op('getNewsletter'))),
);
add(
  'soap12 token in the endpoint query beside a valid wsAuthHeader',
  'soap12',
  'TOKEN_IN_URL',
  soap12(`${V7}?x=1&%54oken=${TOKEN}`, envelope('1.2', op('getNewsletter'), AUTH)),
);
add(
  'soap11 token in the query of a public endpoint',
  'soap11',
  'TOKEN_IN_URL',
  soap11(`${PUBLIC}?token`, envelope('1.1', op('getBereich', '<bereichID>1</bereichID>'))),
);
add(
  'soap11 an undecodable name in the endpoint query is still ignored',
  'soap11',
  'ok',
  soap11(`${PUBLIC}?%zz=1`, envelope('1.1', op('getBereich', '<bereichID>1</bereichID>'))),
);
add('GET ?wsdl with a token in the query', 'http', 'TOKEN_IN_URL', get(`${V7}?wsdl&token=${TOKEN}`));
add('GET ?disco with a token in the query', 'http', 'TOKEN_IN_URL', get(`${V6}?TOKEN=${TOKEN}&disco`));
add('GET of a help page with a token in the query', 'http', 'TOKEN_IN_URL', get(`${PUBLIC}?token=${TOKEN}`));
