/** HTTP GET: `<endpoint>/<operation>?name=value…`; HEAD is answered as GET without the body. */
import type { Binding } from '../binding.ts';
import { decodeHttpCall, HTTP_CONTENT_TYPE, refuseAsHttp } from './http.ts';

export const httpGet: Binding = {
  name: 'httpget',
  title: 'HTTP GET',
  requestMediaTypes: [],
  contentType: HTTP_CONTENT_TYPE,
  conditional: true,
  description: { style: 'http', verb: 'GET', wsdlName: 'HttpGet' },
  isPublic: (call) => !call.operation.endpoint.requiresToken,
  claims: ({ method, target }) => target.kind === 'operation' && (method === 'GET' || method === 'HEAD'),
  readsBody: () => false,
  decode: (request, settings) => decodeHttpCall(request, settings, 'httpget'),
  render: (writer, result) => ({ parts: writer.http(result) }),
  prepared: { layout: 'indented', wrap: (writer, inner) => writer.wrapHttp(inner) },
  refusal: refuseAsHttp,
};
