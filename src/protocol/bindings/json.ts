/**
 * The JSON API (docs/json-api.md): `/api/v1/…` routes that call the contract's operations
 * (json/routes.ts), answer with JSON written by writers compiled from the contract
 * (json/serialize.ts), or with a record's bytes, and refuse with RFC 9457 problem details.
 */
import { ScoopError } from '../../contract/errors.ts';
import type { Anhang, Bild } from '../../contract/types.ts';
import type { Binding } from '../binding.ts';
import { JSON_MEDIA_TYPE } from '../json/client-request.ts';
import { renderContent } from '../json/content.ts';
import { renderProblem } from '../json/problem.ts';
import { decodeJsonRequest } from '../json/request.ts';
import { API_DOCUMENTS, API_PREFIX, JSON_ROUTES, type JsonRoute } from '../json/routes.ts';

/** Whether a path is the JSON API's. */
export function isApiPath(path: string): boolean {
  return path === API_PREFIX || path.startsWith(`${API_PREFIX}/`);
}

const BY_ID = new Map<string | undefined, JsonRoute>(JSON_ROUTES.map((r) => [r.operationId, r]));

export const json: Binding = {
  name: 'json',
  title: 'JSON',
  requestMediaTypes: [JSON_MEDIA_TYPE],
  contentType: JSON_MEDIA_TYPE,
  conditional: true,
  description: { style: 'json' },
  // The route says whether a token is needed (a HEAD of an attachment is public, say).
  isPublic: (call) => !call.authenticate,
  // GET and HEAD of the API's documents (its OpenAPI document) are left to the describe layer.
  claims: ({ method, path }) =>
    isApiPath(path) && !((method === 'GET' || method === 'HEAD') && API_DOCUMENTS.includes(path)),
  // A POST's body is read first, whatever its media type, so an oversized body is
  // BODY_TOO_LARGE whatever else is wrong with the request (as on HTTP POST).
  readsBody: ({ method }) => method === 'POST',
  decode(request) {
    const { route, parameters, token } = decodeJsonRequest(request);
    return {
      binding: 'json',
      operation: route.operation,
      parameters,
      token,
      authenticate: route.token,
      route: route.operationId,
    };
  },
  render(writer, result, call, args) {
    const route = BY_ID.get(call.route)!;
    const value = result[route.operation.result.fields[0]!.name];
    switch (route.answer) {
      case 'json':
        return { parts: writer.json(result, args) };
      case 'exists': {
        if (value === true) return { parts: [] };
        const id = route.pathParams[0]!.name;
        throw new ScoopError('UNKNOWN_ID', `Unknown ${id}: ${String(args[id])}`);
      }
      case 'content':
        // The content routes call getAnhang and getBild (json/routes.ts), whose result is the record.
        return renderContent(value as Anhang | Bild);
    }
  },
  refusal: renderProblem,
};
