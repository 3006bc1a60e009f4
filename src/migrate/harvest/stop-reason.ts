/**
 * Why the harvest stopped, in one line, with what the operator may have got wrong: the
 * token, or the namespace — then the one the endpoint's WSDL declares, when it serves one.
 */
import type { OperationName } from '../../contract/operations.ts';
import { readText, type WireClient } from '../wire-client.ts';
import { operationNamed } from './answer-reader.ts';
import type { Outcome } from './attempt.ts';

export async function stopReason(
  client: WireClient,
  namespace: string,
  outcome: Extract<Outcome<OperationName>, { kind: 'stop' }>,
  operation: OperationName,
): Promise<string> {
  if (outcome.hint === 'token') return `${outcome.reason} (check --token)`;
  if (outcome.hint !== 'namespace') return outcome.reason;
  const found = await wsdlNamespace(client, operation).catch(() => undefined);
  if (found !== undefined && found !== namespace)
    return `${outcome.reason}; the service's WSDL names the namespace ${found}: pass --namespace ${found}`;
  return `${outcome.reason} (is --namespace ${namespace} the service's?)`;
}

async function wsdlNamespace(client: WireClient, operation: OperationName): Promise<string | undefined> {
  const path = `${operationNamed(operation).endpoint.path}?wsdl`;
  const answer = await client.send({ method: 'GET', path, headers: {}, body: '' });
  const text = await readText(answer, 256 * 1024);
  if (answer.status !== 200) return undefined;
  return /<(?:\w+:)?definitions\b[^>]*\btargetNamespace="([^"]*)"/.exec(text)?.[1];
}
