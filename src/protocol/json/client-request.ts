/**
 * The request a client sends to call an operation over the JSON API, from the route table
 * (routes.ts): path parameters in the path, the body's fields as a JSON object, the rest
 * in the query (a list repeated), the token as `Authorization: Bearer` when the route needs one.
 */
import type { Arguments, Operation } from '../../contract/operations.ts';
import { API_PREFIX, JSON_ROUTES } from './routes.ts';

export const JSON_MEDIA_TYPE = 'application/json';

export function encodeJsonRequest(
  operation: Operation,
  args: Arguments,
  token: string | undefined,
): { method: 'GET' | 'HEAD' | 'POST'; path: string; headers: Record<string, string>; body: string } {
  const route = JSON_ROUTES.find((r) => r.operation === operation && r.answer !== 'content')!;
  let path = API_PREFIX;
  for (const segment of route.segments)
    path += `/${'param' in segment ? encodeURIComponent(String(args[segment.param])) : segment.literal}`;
  const query = new URLSearchParams();
  for (const { name } of route.queryParams) {
    const value = args[name];
    if (value === undefined || value === null) continue;
    for (const item of Array.isArray(value) ? value : [value]) query.append(name, String(item));
  }
  const text = query.toString();
  const headers: Record<string, string> =
    route.token && token !== undefined ? { authorization: `Bearer ${token}` } : {};
  if (route.method !== 'POST')
    return { method: route.method, path: text ? `${path}?${text}` : path, headers, body: '' };
  const body: Record<string, unknown> = {};
  for (const { name } of route.bodyParams) if (args[name] !== undefined) body[name] = args[name];
  return {
    method: 'POST',
    path,
    headers: { ...headers, 'content-type': JSON_MEDIA_TYPE },
    body: JSON.stringify(body),
  };
}
