/**
 * The request a client sends to call an operation over the JSON API, from the route table
 * (routes.ts): path parameters in the path, the body's fields as a JSON object, the rest
 * in the query (a list repeated), the token as `Authorization: Bearer` when the route needs one.
 */
import type { Operation } from '../../contract/operations.ts';
import { JSON_ROUTES, routeUrl } from './routes.ts';

export const JSON_MEDIA_TYPE = 'application/json';

export function encodeJsonRequest(
  operation: Operation,
  args: Readonly<Record<string, unknown>>,
  token: string | undefined,
): { method: 'GET' | 'HEAD' | 'POST'; path: string; headers: Record<string, string>; body: string } {
  const route = JSON_ROUTES.find((r) => r.operation === operation && r.answer !== 'content')!;
  const path = routeUrl(route, '', args, args, false);
  const headers: Record<string, string> =
    route.token && token !== undefined ? { authorization: `Bearer ${token}` } : {};
  if (route.method !== 'POST') return { method: route.method, path, headers, body: '' };
  const body: Record<string, unknown> = {};
  for (const { name } of route.bodyParams) if (args[name] !== undefined) body[name] = args[name];
  return {
    method: 'POST',
    path,
    headers: { ...headers, 'content-type': JSON_MEDIA_TYPE },
    body: JSON.stringify(body),
  };
}
