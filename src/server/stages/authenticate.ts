/**
 * authenticate: `scoop.asmx` operations (on HTTP GET/POST unless SCOOP_HTTP_AUTH=off) need
 * a token (auth/authenticator.ts). A token verified for the current token version costs
 * no wait; any other is verified against the store. The rate limit's admission is told
 * how it went.
 */
import { isScoopError } from '../../contract/errors.ts';
import type { AppContext } from '../app-context.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage } from '../pipeline.ts';

/** Nothing when the token is known valid now; otherwise the verification under way. */
export function authenticateCall(
  app: AppContext,
  exchange: Exchange,
  token: string | undefined,
): Promise<void> | undefined {
  if (app.authenticator.verifiedNow(token)) {
    if (token !== undefined) exchange.admission?.admitToken(token);
    return undefined;
  }
  return app.authenticator.verify(token).then(
    () => {
      if (token !== undefined) exchange.admission?.admitToken(token);
    },
    (error: unknown) => {
      if (isScoopError(error) && error.code === 'AUTH_FAILED') exchange.admission?.authFailed();
      throw error;
    },
  );
}

export function authenticate(app: AppContext): Stage {
  return {
    name: 'authenticate',
    run(exchange) {
      const call = exchange.call!;
      if (call.authenticate) return authenticateCall(app, exchange, call.token);
    },
  };
}
