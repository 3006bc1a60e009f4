/**
 * The bindings every operation is offered on, in the order the original's WSDL lists
 * them (the WSDL and the help pages' samples follow this order), and then the JSON API. Adding a binding is
 * adding its module, its name to BindingName, and a line here; the server offers each
 * request to these in turn, and their claims never overlap (registry.test.ts).
 */
import type { Binding, BindingName } from '../binding.ts';
import { httpGet } from './http-get.ts';
import { httpPost } from './http-post.ts';
import { json } from './json.ts';
import { soap11 } from './soap11.ts';
import { soap12 } from './soap12.ts';

export const BINDINGS: readonly Binding[] = [soap11, soap12, httpGet, httpPost, json];

const BY_NAME = new Map<BindingName, Binding>(BINDINGS.map((b) => [b.name, b]));

export function bindingNamed(name: BindingName): Binding {
  return BY_NAME.get(name)!;
}
