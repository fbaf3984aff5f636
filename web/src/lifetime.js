// How long what the API hands out lives. A Layer, a Model or a Trainer owns memory in the wasm heap until
// dispose(), or until the garbage collector takes the object; once disposed, every call throws DISPOSED.
// And what a forward leaves lasts only until the next one: a refused forward leaves nothing.
import { MHAError } from './checks.js';

const collected = new FinalizationRegistry(release);

function release({ free, core, addresses }) {
  free(core, ...addresses);
}

/**
 * Frees what `owner` holds in the heap, free(core, ...addresses), when the garbage collector takes it; returns
 * the registration, which a Lifetime ends sooner, on dispose(). `free` is a function of its module, never a
 * closure made in the owner's constructor: that would share the constructor's scope, and with it `this` when
 * another closure there uses it (a Layer's views do), and the registry, which keeps `free`, would keep the
 * owner alive for ever.
 */
export function freeWhenCollected(owner, free, core, ...addresses) {
  const memory = { free, core, addresses };
  collected.register(owner, memory, memory);
  return memory;
}

/**
 * One object's hold on the heap: `new Lifetime(this, disposedMessage, free, core, ...addresses)` in its
 * constructor, where free(core, ...addresses) frees what it owns.
 */
export class Lifetime {
  #memory; // what the registry holds to free it; undefined once freed
  #disposedMessage;

  constructor(owner, disposedMessage, free, core, ...addresses) {
    this.#memory = freeWhenCollected(owner, free, core, ...addresses);
    this.#disposedMessage = disposedMessage;
  }

  /** The core, for a call on the object: DISPOSED once it is. */
  core() {
    if (this.ended) throw new MHAError('DISPOSED', this.#disposedMessage);
    return this.#memory.core;
  }

  get ended() {
    return !this.#memory;
  }

  /** Frees the object's memory, once; later calls do nothing. */
  end() {
    if (this.ended) return;
    collected.unregister(this.#memory);
    release(this.#memory);
    this.#memory = undefined;
  }
}

/**
 * Runs a forward; when anything refuses it (a check in JavaScript or the core), `forget` drops the owner's
 * last results, so a caller never reads the forward before this one as if it were this one's.
 */
export function forgettingOnFailure(forward, forget) {
  try {
    return forward();
  } catch (error) {
    forget();
    throw error;
  }
}
