/** HTTP POST: `<endpoint>/<operation>` with an application/x-www-form-urlencoded body. */
import type { Binding } from '../binding.ts';
import { FORM_MEDIA_TYPE, formToken, readFormBody, refuseQueryParameters } from '../http-request.ts';
import { decodeHttpCall, HTTP_CONTENT_TYPE, refuseAsHttp } from './http.ts';

export const httpPost: Binding = {
  name: 'httppost',
  title: 'HTTP POST',
  requestMediaTypes: [FORM_MEDIA_TYPE],
  contentType: HTTP_CONTENT_TYPE,
  conditional: false,
  description: { style: 'http', verb: 'POST', wsdlName: 'HttpPost' },
  isPublic: () => false,
  claims: ({ method, target }) => target.kind === 'operation' && method === 'POST',
  // Read first, whatever its media type (an empty body of any type is an empty form), so an
  // oversized body is BODY_TOO_LARGE whatever else is wrong with the request (docs/errors.md).
  readsBody: () => true,
  decode: (request, settings) =>
    decodeHttpCall(request, settings, 'httppost', (operation, queryPairs) => {
      refuseQueryParameters(operation, queryPairs);
      const pairs = readFormBody(request.body ?? Buffer.alloc(0), request.mediaType);
      return { pairs, token: formToken(pairs) };
    }),
  render: (writer, result) => ({ parts: writer.http(result) }),
  prepared: { layout: 'indented', wrap: (writer, inner) => writer.wrapHttp(inner) },
  refusal: refuseAsHttp,
};
