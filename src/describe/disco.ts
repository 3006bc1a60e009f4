/** The DISCO document of an endpoint (`?disco`), as the original writes it. */
import type { Endpoint } from '../contract/operations.ts';
import { escapeAttribute } from '../xml/escape.ts';

export function generateDisco(endpoint: Endpoint, namespace: string, url: string): string {
  const u = escapeAttribute(url);
  const ns = escapeAttribute(namespace);
  const svc = endpoint.serviceName;
  return [
    '<?xml version="1.0" encoding="utf-8"?>',
    '<discovery xmlns:xsd="http://www.w3.org/2001/XMLSchema" xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="http://schemas.xmlsoap.org/disco/">',
    `  <contractRef ref="${u}?wsdl" docRef="${u}" xmlns="http://schemas.xmlsoap.org/disco/scl/" />`,
    `  <soap address="${u}" xmlns:q1="${ns}" binding="q1:${svc}Soap" xmlns="http://schemas.xmlsoap.org/disco/soap/" />`,
    `  <soap address="${u}" xmlns:q2="${ns}" binding="q2:${svc}Soap12" xmlns="http://schemas.xmlsoap.org/disco/soap/" />`,
    '</discovery>',
  ].join('\n');
}
