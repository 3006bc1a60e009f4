import assert from 'node:assert/strict';
import { randomUUID } from 'node:crypto';
import { describe, test } from 'node:test';
import { isScoopError } from '../contract/errors.ts';
import { createMetrics } from '../observe/metrics.ts';
import { clientOf, RateLimiter } from './rate-limit.ts';

const TOKEN = '0b6c6a0e-41c9-4b7e-9d55-2f7c8d1e3a90';
const OTHER = 'f3a1c2d4-5e6f-4a7b-8c9d-0e1f2a3b4c5d';

function clock(start = 1_000_000) {
  let now = start;
  return {
    now: () => now,
    advance(ms: number) {
      now += ms;
    },
  };
}

function refused(run: () => unknown): number {
  try {
    run();
  } catch (error) {
    assert.ok(isScoopError(error), String(error));
    assert.equal(error.code, 'RATE_LIMITED');
    assert.ok(error.retryAfterSeconds !== undefined && error.retryAfterSeconds >= 1);
    return error.retryAfterSeconds;
  }
  assert.fail('admitted, expected RATE_LIMITED');
}

describe('clientOf', () => {
  test('an IPv4 address is the client, also IPv4-mapped', () => {
    assert.equal(clientOf('192.0.2.7'), '192.0.2.7');
    assert.equal(clientOf('::ffff:192.0.2.7'), '192.0.2.7');
    assert.equal(clientOf('::FFFF:192.0.2.7'), '192.0.2.7');
  });

  test('an IPv6 client is its /64, however the address is written', () => {
    const a = clientOf('2001:db8:1:2:aaaa:bbbb:cccc:dddd');
    assert.equal(a, '2001:db8:1:2::/64');
    assert.equal(clientOf('2001:0db8:0001:0002::1'), a);
    assert.equal(clientOf('2001:DB8:1:2:ffff::'), a);
    assert.notEqual(clientOf('2001:db8:1:3::1'), a);
    assert.equal(clientOf('::1'), '0:0:0:0::/64');
    assert.equal(clientOf('fe80::1%eth0'), 'fe80:0:0:0::/64');
    assert.equal(clientOf('64:ff9b::192.0.2.33'), '64:ff9b:0:0::/64');
  });

  test('no address is one client of its own', () => {
    assert.equal(clientOf(undefined), 'unknown');
    assert.equal(clientOf(''), 'unknown');
  });
});

describe('RateLimiter', () => {
  test('an address has its burst, then is refused until the rate refills it', () => {
    const c = clock();
    const limiter = new RateLimiter({ perSecond: 2, burst: 3 }, undefined, c.now);
    for (let i = 0; i < 3; i++) limiter.admitAddress('192.0.2.1');
    assert.equal(
      refused(() => limiter.admitAddress('192.0.2.1')),
      1,
    );
    limiter.admitAddress('192.0.2.2');
    c.advance(499);
    refused(() => limiter.admitAddress('192.0.2.1'));
    c.advance(1);
    limiter.admitAddress('192.0.2.1');
    refused(() => limiter.admitAddress('192.0.2.1'));
    c.advance(60_000);
    for (let i = 0; i < 3; i++) limiter.admitAddress('192.0.2.1');
    refused(() => limiter.admitAddress('192.0.2.1'));
  });

  test('made-up tokens are charged to the address, each one, and get no bucket of their own', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 5 }, undefined, clock().now);
    for (let i = 0; i < 5; i++) {
      const admission = limiter.admitAddress('192.0.2.1', randomUUID());
      admission.authFailed();
    }
    refused(() => limiter.admitAddress('192.0.2.1', randomUUID()));
    refused(() => limiter.admitAddress('192.0.2.1', 'not a guid'));
    refused(() => limiter.admitAddress('192.0.2.1'));
    assert.equal(limiter.size.tokens, 0);
  });

  test('a verified token takes the request over: the address gets its charge back', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, undefined, clock().now);
    limiter.admitAddress('192.0.2.1').admitToken(TOKEN);
    limiter.admitAddress('192.0.2.1').admitToken(TOKEN);
    // Two token requests, and the address has its whole burst still.
    limiter.admitAddress('192.0.2.1');
    limiter.admitAddress('192.0.2.1');
    refused(() => limiter.admitAddress('192.0.2.1'));
  });

  test("a token's own budget is spent independently of its address", () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, undefined, clock().now);
    limiter.admitAddress('192.0.2.1').admitToken(TOKEN);
    limiter.admitAddress('192.0.2.1').admitToken(TOKEN);
    const third = limiter.admitAddress('192.0.2.1');
    refused(() => third.admitToken(TOKEN));
    // The refused token request was not left on the address either.
    limiter.admitAddress('192.0.2.1');
    limiter.admitAddress('192.0.2.1');
    refused(() => limiter.admitAddress('192.0.2.1'));
  });

  test('a token that verified before passes an address whose budget is spent, within its own', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 3 }, undefined, clock().now);
    limiter.admitAddress('192.0.2.1', TOKEN).admitToken(TOKEN);
    for (let i = 0; i < 3; i++) limiter.admitAddress('192.0.2.1');
    refused(() => limiter.admitAddress('192.0.2.1'));
    refused(() => limiter.admitAddress('192.0.2.1', OTHER));
    // Charged to the token at once, also in another spelling of the same GUID.
    const known = limiter.admitAddress('192.0.2.1', TOKEN);
    known.admitToken(TOKEN);
    limiter.admitAddress('192.0.2.1', ` ${TOKEN.toUpperCase()} `).admitToken(TOKEN);
    refused(() => limiter.admitAddress('192.0.2.1', TOKEN));
  });

  test('a known token that fails (revoked) is charged to the address and known no more', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, undefined, clock().now);
    limiter.admitAddress('192.0.2.1', TOKEN).admitToken(TOKEN);
    limiter.admitAddress('192.0.2.1', TOKEN).authFailed();
    // The address paid for the failure; the token goes through the address from now on.
    limiter.admitAddress('192.0.2.1', TOKEN).authFailed();
    refused(() => limiter.admitAddress('192.0.2.1', TOKEN));
    assert.equal(limiter.size.tokens, 0);
  });

  test('a request whose token was verified as another one than presented is charged once', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, undefined, clock().now);
    limiter.admitAddress('192.0.2.1', TOKEN).admitToken(TOKEN);
    limiter.admitAddress('192.0.2.1', OTHER).admitToken(OTHER);
    // TOKEN was charged once, OTHER once: each has one request left.
    limiter.admitAddress('192.0.2.1', TOKEN).admitToken(TOKEN);
    limiter.admitAddress('192.0.2.1', OTHER).admitToken(OTHER);
    refused(() => limiter.admitAddress('192.0.2.1', TOKEN));
    const moved = limiter.admitAddress('192.0.2.2');
    refused(() => moved.admitToken(OTHER));
  });

  test('IPv6 addresses of one /64 share a budget', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 2 }, undefined, clock().now);
    limiter.admitAddress('2001:db8::1');
    limiter.admitAddress('2001:db8::2');
    refused(() => limiter.admitAddress(`2001:db8::${Math.floor(Math.random() * 65535).toString(16)}`));
    limiter.admitAddress('2001:db8:0:1::1');
  });

  test('refusals are counted by the budget that was spent', async () => {
    const metrics = createMetrics();
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, metrics, clock().now);
    limiter.admitAddress('192.0.2.1');
    refused(() => limiter.admitAddress('192.0.2.1'));
    refused(() => limiter.admitAddress('192.0.2.1'));
    limiter.admitAddress('192.0.2.2').admitToken(TOKEN);
    const again = limiter.admitAddress('192.0.2.3');
    refused(() => again.admitToken(TOKEN));
    const text = await metrics.registry.metrics();
    assert.match(text, /scoop_rate_limited_total\{by="address"\} 2/);
    assert.match(text, /scoop_rate_limited_total\{by="token"\} 1/);
  });

  test('memory stays bounded under a flood of addresses', () => {
    const limiter = new RateLimiter({ perSecond: 1, burst: 1 }, undefined, clock().now);
    for (let i = 0; i < 100_100; i++)
      limiter.admitAddress(`10.${(i >> 16) & 255}.${(i >> 8) & 255}.${i & 255}`);
    assert.equal(limiter.size.addresses, 100_000);
  });
});
