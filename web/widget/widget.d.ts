// Types for the <multi-head-attention> widget (web/dist/widget.js, built from web/widget/define.js).

/** What the widget computed last: copies, safe to keep. Per-head arrays are L×L or L×d_k, row-major. */
export interface MultiHeadAttentionResult {
  /** One L×L Float32Array of softmax weights per head; masked entries are exactly 0. */
  attention: Float32Array[];
  /** L×d_model: concat · W^O (the concat itself when no wo is given). */
  output: Float32Array;
  /** L×d_model: the heads' outputs side by side. */
  concat: Float32Array;
  /** One L×L Float32Array of scores per head (÷√d_k when scale is on), before the mask. */
  scores: Float32Array[];
  /** One L×d_k Float32Array per head: A_i · V_i. */
  headOutputs: Float32Array[];
}

export type MultiHeadAttentionView = 'heatmaps' | 'pipeline' | 'lines' | 'full' | 'train';

/**
 * Every property mirrors its attribute; reading a data property gives null while the attributes are invalid. A data
 * property given a value its attribute would refuse (checked within the attribute's bounds before it is copied) shows
 * that error and leaves the attribute as it was; setting it throws nothing.
 */
export class MultiHeadAttentionElement extends HTMLElement {
  static readonly observedAttributes: string[];
  /** One label per row of q, kept whole (the widget shows at most 32 characters of each). Default: 1, 2, 3… (the lesson's 猫吃鱼 when no data attribute is given). */
  tokens: string[] | null;
  /** L×d_model each, the same shape. */
  q: number[][] | null;
  k: number[][] | null;
  v: number[][] | null;
  /** Optional d_model×d_model; the identity when absent. */
  wo: number[][] | null;
  /** Must divide d_model; with view="train", 1, 2 or 4. Default 2 (1 when d_model is odd). */
  heads: number | null;
  /** The causal mask; false (attribute absent) by default, as in the lesson's table. */
  causal: boolean;
  /** Divide scores by √d_k; true unless scale="off". */
  scale: boolean;
  /** Sliders for every q/k/v entry, a head-count menu and mask/scale switches. */
  editable: boolean;
  /** A denser layout that fits a 16:9 slide, sliders included: q, k and v side by side, smaller cells. */
  compact: boolean;
  view: MultiHeadAttentionView | string | null;
  /** The live result, or null while loading or showing an error. */
  readonly result: MultiHeadAttentionResult | null;
  /** Resolves with the result (null on error) once pending changes are rendered, every figure drawn (a large view takes a few frames). */
  readonly updateComplete: Promise<MultiHeadAttentionResult | null>;
}

/** Registers the element under `name` (a subclass for any name after the first); returns the class defined there. */
export function defineMultiHeadAttention(name?: string, registry?: CustomElementRegistry): typeof MultiHeadAttentionElement | undefined;

declare global {
  interface HTMLElementTagNameMap {
    'multi-head-attention': MultiHeadAttentionElement;
  }
  interface HTMLElementEventMap {
    /** Fired (bubbling, composed) after each change the learner makes inside a widget. */
    'mha-change': CustomEvent<MultiHeadAttentionResult>;
  }
}
