/**
 * invoke: raw strings become typed arguments by the contract's parameter types; an answer
 * the import prepared is sent in the binding's envelope (src/prepare/); otherwise the
 * operation's handler reads one consistent snapshot of the store, and the binding renders
 * the result with the operation's writer (compiled once at start-up from the contract).
 * An answer no import prepares but that depends only on the content and the arguments (a
 * resized image) is kept in the answer pack once made, and sent from there the next time.
 */

import type { AnswerPack } from '../../prepare/answer-pack.ts';
import { keepMade, madeInside, preparedInside } from '../../prepare/prepared-answer.ts';
import { bindingNamed } from '../../protocol/bindings/registry.ts';
import { coerceArguments } from '../../protocol/coerce.ts';
import { invoke as invokeHandler } from '../../service/invoke.ts';
import type { BodyPart } from '../../xml/writer.ts';
import type { AppContext } from '../app-context.ts';
import { entityTag } from '../etag.ts';
import type { Exchange } from '../exchange.ts';
import type { Stage } from '../pipeline.ts';
import { allBuffers } from '../send.ts';

async function run(app: AppContext, exchange: Exchange): Promise<void> {
  const call = exchange.call!;
  const args = coerceArguments(call.operation, call.parameters, { maxListItems: app.maxListItems });
  let expiresAt = Number.POSITIVE_INFINITY;
  const binding = bindingNamed(call.binding);
  const writer = app.writers.get(call.operation)!;
  if (binding.prepared) {
    const { layout, wrap } = binding.prepared;
    const pack = binding.conditional ? app.answers?.pack : undefined;
    let packed: { generation: number; slot: number } | undefined;
    const sources = {
      texts: app.base64Cache?.keepsFiles ? app.base64Cache : undefined,
      allocate: (length: number) => exchange.borrow(app.textBuffers, length),
      answers: app.answers,
      packed:
        pack &&
        ((generation: number, slot: number) => {
          packed = { generation, slot };
        }),
    };
    const now = app.now();
    const found =
      (await preparedInside(
        app.store,
        call.operation,
        args,
        layout,
        now,
        (at) => {
          expiresAt = Math.min(expiresAt, at);
        },
        sources,
      )) ?? madeInside(call.operation, args, layout, now, sources);
    if (found) {
      const parts = wrap(writer, found);
      const tag = pack && packed && packedTag(pack, packed.generation, packed.slot, parts);
      exchange.answer = { parts, headers: undefined, expiresAt, tag };
      return;
    }
  }
  // The version before the handler reads: its answer is kept only if the store still has it after.
  const version = app.answers?.version();
  const result = await invokeHandler(call.operation, args, {
    ...app.service,
    expires: (at) => {
      expiresAt = Math.min(expiresAt, at);
    },
    // A getter: only a handler that can drop work (getBild's resize) makes the signal.
    get signal() {
      return exchange.signal;
    },
  });
  const { parts, headers } = binding.render(writer, result, call, args);
  exchange.answer = { parts, headers, expiresAt };
  // SOAP's and HTTP's answers have no headers of their own; the check keeps it so.
  if (binding.prepared && version !== undefined && headers === undefined && allBuffers(parts)) {
    const { layout, wrap } = binding.prepared;
    const envelope = () => wrap(writer, []) as [Buffer, Buffer];
    keepMade(app.answers!, call.operation, args, layout, version, envelope, parts);
  }
}

/**
 * The entity tag of an answer sent from the answer pack: kept with its slot, so that its bytes
 * are hashed once while the slot holds them rather than once per request (etag.ts). A slot is
 * the answer's until the pack drops it (an import changed the answer) or its whole index (the
 * pack was emptied); the tag goes with the slot, and the generation the answer was found in
 * tells whether the index was dropped meanwhile: then nothing is kept or taken.
 */
function packedTag(
  pack: AnswerPack,
  generation: number,
  slot: number,
  parts: readonly BodyPart[],
): string | undefined {
  const kept = pack.tagOf(generation, slot);
  if (kept !== undefined) return kept;
  const tag = entityTag(parts);
  if (tag !== undefined) pack.keepTag(generation, slot, tag);
  return tag;
}

export function invoke(app: AppContext): Stage {
  return { name: 'invoke', run: (exchange) => run(app, exchange) };
}
