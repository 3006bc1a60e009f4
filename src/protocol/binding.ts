/** The four bindings of every operation (service-spec.md 4.2). */
import type { SoapVersion } from './namespaces.ts';

export type BindingName = 'soap11' | 'soap12' | 'httpget' | 'httppost';

export function soapBinding(version: SoapVersion): BindingName {
  return version === '1.1' ? 'soap11' : 'soap12';
}
