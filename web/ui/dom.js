// The one way the page, the widget and the training section build DOM. h() makes an element in a
// document: the browser's, linkedom's in the tests, or `vdoc`, a stand-in that records plain objects.
// show() then compares virtual nodes with what it showed last time and touches the real DOM only where
// something changed, so elements that stay (a focused button, a dragged slider) are never re-created.

class VText {
  constructor(data) {
    this.data = String(data);
  }
}

class VElement {
  constructor(ns, tag) {
    this.ns = ns;
    this.tag = tag;
    this.key = null; // set by keyBy(): among its siblings, show() matches it by key instead of by place
    this.attrs = {};
    this.children = [];
    this.listeners = null; // by event type, once it has one
    this.styles = {};
  }

  /** Recorded like the CSSOM, so show() can write it as such (a strict style-src allows that). */
  get style() {
    return { setProperty: (property, value) => (this.styles[property] = String(value)) };
  }

  setAttribute(name, value) {
    this.attrs[name] = String(value);
  }

  getAttribute(name) {
    return this.attrs[name] ?? null;
  }

  addEventListener(type, handler) {
    (this.listeners ??= {})[type] = handler;
  }

  appendChild(child) {
    this.children.push(child);
    return child;
  }

  append(...children) {
    for (const child of children) this.appendChild(typeof child === 'string' ? new VText(child) : child);
  }

  set textContent(text) {
    this.children = [new VText(text)];
  }

  get textContent() {
    return this.children.map((child) => (child instanceof VText ? child.data : child.textContent)).join('');
  }
}

/** How many elements a virtual node makes when shown (a drawing's size, known before it reaches the page). */
export function elementCount(v) {
  if (!(v instanceof VElement)) return 0;
  let count = 1;
  for (const child of v.children) count += elementCount(child);
  return count;
}

/** The subset of `document` that h() and the drawing functions use. */
export const vdoc = {
  createElementNS: (ns, tag) => new VElement(ns, tag),
  createElement: (tag) => new VElement(null, tag),
  createTextNode: (data) => new VText(data),
};

const skipped = (value) => value === null || value === undefined || value === false;

/**
 * An HTML element in `doc`: attributes (true → present, false/null → absent), `on…` event handlers,
 * `style` as an object of CSS properties (CSSOM writes, never a style attribute), and children (strings
 * become text, never markup).
 */
function element(doc, tag, attrs = {}, children = []) {
  const node = doc.createElement(tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (skipped(value)) continue;
    if (name.startsWith('on')) node.addEventListener(name.slice(2), value);
    else if (name === 'style' && typeof value === 'object') for (const [property, text] of Object.entries(value)) node.style.setProperty(property, text);
    else node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of [].concat(children)) {
    if (skipped(child)) continue;
    node.appendChild(typeof child === 'string' || typeof child === 'number' ? doc.createTextNode(String(child)) : child);
  }
  return node;
}

/** h('div', { class: 'x', onclick: fn }, [children]) in the page's document. */
export const h = (tag, attrs, children) => element(document, tag, attrs, children);

/** The same h() for another document (a widget's ownerDocument, linkedom, vdoc). */
export const hFor = (doc) => (tag, attrs, children) => element(doc, tag, attrs, children);

/** h() for virtual elements, to hand to show(). */
export const vh = hFor(vdoc);

/** Replaces a container's content with real nodes. */
export function fill(container, children) {
  container.replaceChildren(...[].concat(children).filter((child) => !skipped(child)));
  return container;
}

/** Every virtual element under `node` (itself included) that passes `test`. */
export function findAll(node, test, found = []) {
  if (node instanceof VElement) {
    if (test(node)) found.push(node);
    for (const child of node.children) findAll(child, test, found);
  }
  return found;
}

/**
 * Keys the virtual elements under `node` that carry every one of `names` (e.g. a heatmap's cells by
 * data-row and data-col): show() then patches each in the real element that showed the same key, so a
 * row or column added in the middle adds its own elements and leaves the others untouched.
 */
export function keyBy(node, names) {
  for (const found of findAll(node, (v) => names.every((name) => name in v.attrs))) found.key = names.map((name) => found.attrs[name]).join('/');
  return node;
}

const isVirtual = (node) => node instanceof VText || node instanceof VElement;
const handlers = new WeakMap(); // real node → the handlers of the virtual node it shows, by event type

function listen(node, listeners) {
  let held = handlers.get(node);
  if (!held) {
    if (!listeners) return; // most drawn elements never have one: nothing to keep for them
    handlers.set(node, (held = {}));
  }
  for (const type in listeners) {
    if (!(type in held)) node.addEventListener(type, (event) => held[type]?.(event));
    held[type] = listeners[type];
  }
  for (const type in held) if (!listeners?.[type]) held[type] = null;
}

function realize(doc, v) {
  if (!isVirtual(v)) return v;
  if (v instanceof VText) return doc.createTextNode(v.data);
  const node = v.ns ? doc.createElementNS(v.ns, v.tag) : doc.createElement(v.tag);
  for (const name in v.attrs) node.setAttribute(name, v.attrs[name]);
  for (const property in v.styles) node.style.setProperty(property, v.styles[property]);
  listen(node, v.listeners);
  for (const child of v.children) node.appendChild(realize(doc, child));
  return node;
}

const sameKind = (a, b) => (a instanceof VText ? b instanceof VText : a instanceof VElement && b instanceof VElement && a.tag === b.tag && a.ns === b.ns);

/** Brings `node` (drawn from `prev`) up to date with `next`, which must be of the same kind. */
function patch(node, prev, next) {
  if (prev === next) return; // the same virtual node shown again: it has not changed since
  if (next instanceof VText) {
    if (prev.data !== next.data) node.data = next.data;
    return;
  }
  for (const name in next.attrs) if (prev.attrs[name] !== next.attrs[name]) node.setAttribute(name, next.attrs[name]);
  for (const name in prev.attrs) if (!(name in next.attrs)) node.removeAttribute(name);
  for (const property in next.styles) if (prev.styles[property] !== next.styles[property]) node.style.setProperty(property, next.styles[property]);
  for (const property in prev.styles) if (!(property in next.styles)) node.style.removeProperty(property);
  listen(node, next.listeners);
  patchChildren(node, prev.children, next.children);
}

/** Whether show() can match these children by key: each has one, and no two the same. */
const keyed = (list) => list.length > 0 && list.every((v) => v instanceof VElement && v.key !== null) && new Set(list.map((v) => v.key)).size === list.length;

/** Children that all have keys (see keyBy): each kept key is patched where it is, the others added or removed. */
function patchKeyedChildren(parent, prevList, nextList) {
  const doc = parent.ownerDocument;
  const shown = new Map(); // key → { node, prev }
  let child = parent.firstChild;
  for (const prev of prevList) {
    shown.set(prev.key, { node: child, prev });
    child = child.nextSibling;
  }
  const wanted = new Map(nextList.map((next) => [next.key, next]));
  for (const [key, { node, prev }] of shown) {
    if (wanted.has(key) && sameKind(prev, wanted.get(key))) continue;
    node.remove();
    shown.delete(key);
  }
  let at = parent.firstChild;
  for (const next of nextList) {
    const kept = shown.get(next.key);
    if (!kept) {
      parent.insertBefore(realize(doc, next), at);
      continue;
    }
    if (kept.node === at) at = at.nextSibling;
    else parent.insertBefore(kept.node, at); // moved among its siblings
    patch(kept.node, kept.prev, next);
  }
}

/** Whether children keep their keys in the same places (then patching by place is patching by key). */
const samePlaces = (prevList, nextList) => prevList.length === nextList.length && prevList.every((prev, i) => prev.key === nextList[i].key);

function patchChildren(parent, prevList, nextList) {
  if (!samePlaces(prevList, nextList) && keyed(prevList) && keyed(nextList)) return patchKeyedChildren(parent, prevList, nextList);
  const doc = parent.ownerDocument;
  let child = parent.firstChild;
  let aligned = true; // whether `child` still shows prevList[i]
  for (let i = 0; i < nextList.length; i++) {
    const prev = prevList[i];
    const next = nextList[i];
    if (!isVirtual(next)) {
      // A real node is shown as it is, and left where it is when it is already there.
      if (child === next) child = child.nextSibling;
      else {
        parent.insertBefore(next, child);
        aligned = false;
      }
      continue;
    }
    if (!child) {
      parent.appendChild(realize(doc, next));
      continue;
    }
    const following = child.nextSibling;
    if (aligned && sameKind(prev, next)) patch(child, prev, next);
    else parent.replaceChild(realize(doc, next), child);
    child = following;
  }
  while (child) {
    const extra = child;
    child = child.nextSibling;
    extra.remove();
  }
}

const drawn = new WeakMap(); // container → the nodes it shows

/**
 * Shows nodes in a container, patching what it showed before. The list holds virtual nodes (from vh()
 * or a drawing function given vdoc) and may hold real ones, which are kept, never rebuilt.
 */
export function show(container, children) {
  const next = [].concat(children).filter((child) => !skipped(child));
  const prev = drawn.get(container);
  // Someone else changed the container since: start afresh.
  if (prev && container.childNodes.length === prev.length) patchChildren(container, prev, next);
  else container.replaceChildren(...next.map((child) => realize(container.ownerDocument, child)));
  drawn.set(container, next);
  return container;
}
