// The widget's entry point (bundled to web/dist/widget.js): importing it defines <multi-head-attention>.
//
//   <script type="module" src="widget.js"></script>
//   <multi-head-attention tokens='["猫","吃","鱼"]' heads="2" q="…" k="…" v="…"></multi-head-attention>
//
// Under another tag name:  import { defineMultiHeadAttention } from './widget.js';
//                          defineMultiHeadAttention('attention-heads');
import { MultiHeadAttentionElement } from './element.js';

export { MultiHeadAttentionElement };

const registered = new WeakMap(); // registry → whether the base class itself is taken there

/**
 * Registers the element under `name` (default multi-head-attention) unless that name is already
 * defined, and returns the class registered under it. A registry accepts a class only once, so any
 * further name gets its own subclass.
 */
export function defineMultiHeadAttention(name = 'multi-head-attention', registry = globalThis.customElements) {
  if (!registry) return undefined;
  const existing = registry.get(name);
  if (existing) return existing;
  const cls = registered.get(registry) ? class extends MultiHeadAttentionElement {} : MultiHeadAttentionElement;
  registry.define(name, cls);
  if (cls === MultiHeadAttentionElement) registered.set(registry, true);
  return cls;
}

defineMultiHeadAttention();
