/**
 * The bytes of request bodies the process holds at once (SCOOP_MAX_BODY_BYTES_IN_FLIGHT):
 * without it, every open connection may hold a body up to SCOOP_MAX_BODY_BYTES, and 200
 * connections sending 4 MiB each took the server from 81 MB to 888 MB. A body counts from
 * its declared Content-Length as soon as its reading starts (a chunked one as its chunks
 * arrive) until its answer is done or its client gone: what is decoded and parsed from it
 * lives as long.
 */
export class BodyBudget {
  #used = 0;

  constructor(readonly limit: number) {}

  /** Bytes counted now, by every claim not yet released. */
  get used(): number {
    return this.#used;
  }

  /** One request's share, empty at first. */
  claim(): BodyClaim {
    return new BodyClaim(this);
  }

  /** Counts `bytes` if they fit under the limit; false (nothing counted) when they do not. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limit) return false;
    this.#used += bytes;
    return true;
  }

  give(bytes: number): void {
    this.#used -= bytes;
  }
}

/** What one request holds of the budget; released once, however the request ends. */
export class BodyClaim {
  #held = 0;
  #released = false;

  constructor(private readonly budget: BodyBudget) {}

  /** Adds `bytes` to the claim; false when the budget cannot hold them. After release, counts nothing. */
  take(bytes: number): boolean {
    if (this.#released) return true;
    if (!this.budget.take(bytes)) return false;
    this.#held += bytes;
    return true;
  }

  /** Gives back what the claim holds; later calls do nothing. */
  readonly release = (): void => {
    if (this.#released) return;
    this.#released = true;
    this.budget.give(this.#held);
    this.#held = 0;
  };
}
