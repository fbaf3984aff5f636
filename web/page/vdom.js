// Figures are redrawn on every input. The drawing functions take the document as a parameter, so the
// page hands them `vdoc`, a stand-in that records plain objects; `show` then compares them with what it
// drew last time and touches the real DOM only where something changed (usually fills and numbers).

class VText {
  constructor(data) {
    this.data = String(data);
  }
}

class VElement {
  constructor(ns, tag) {
    this.ns = ns;
    this.tag = tag;
    this.attrs = {};
    this.children = [];
  }

  setAttribute(name, value) {
    this.attrs[name] = String(value);
  }

  getAttribute(name) {
    return this.attrs[name] ?? null;
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

/** The subset of `document` the drawing functions use. */
export const vdoc = {
  createElementNS: (ns, tag) => new VElement(ns, tag),
  createElement: (tag) => new VElement(null, tag),
  createTextNode: (data) => new VText(data),
};

/** Like dom.js's h(), for virtual HTML elements (no event handlers: figures are not interactive). */
export function vh(tag, attrs = {}, children = []) {
  const node = new VElement(null, tag);
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : value);
  }
  for (const child of [].concat(children)) {
    if (child === null || child === undefined || child === false) continue;
    node.append(typeof child === 'number' ? String(child) : child);
  }
  return node;
}

/** Every virtual element under `node` (itself included) that passes `test`. */
export function findAll(node, test, found = []) {
  if (node instanceof VElement) {
    if (test(node)) found.push(node);
    for (const child of node.children) findAll(child, test, found);
  }
  return found;
}

function realize(v) {
  if (v instanceof VText) return document.createTextNode(v.data);
  const node = v.ns ? document.createElementNS(v.ns, v.tag) : document.createElement(v.tag);
  for (const name in v.attrs) node.setAttribute(name, v.attrs[name]);
  for (const child of v.children) node.appendChild(realize(child));
  return node;
}

const sameKind = (a, b) => (a instanceof VText ? b instanceof VText : b instanceof VElement && a.tag === b.tag && a.ns === b.ns);

/** Brings `node` (drawn from `prev`) up to date with `next`, which must be of the same kind. */
function patch(node, prev, next) {
  if (next instanceof VText) {
    if (prev.data !== next.data) node.data = next.data;
    return;
  }
  for (const name in next.attrs) if (prev.attrs[name] !== next.attrs[name]) node.setAttribute(name, next.attrs[name]);
  for (const name in prev.attrs) if (!(name in next.attrs)) node.removeAttribute(name);
  patchChildren(node, prev.children, next.children);
}

function patchChildren(parent, prevList, nextList) {
  let child = parent.firstChild;
  for (let i = 0; i < nextList.length; i++) {
    const prev = prevList[i];
    const next = nextList[i];
    if (!child) {
      parent.appendChild(realize(next));
      continue;
    }
    const following = child.nextSibling;
    if (prev && sameKind(prev, next)) patch(child, prev, next);
    else parent.replaceChild(realize(next), child);
    child = following;
  }
  while (child) {
    const extra = child;
    child = child.nextSibling;
    extra.remove();
  }
}

const drawn = new WeakMap(); // container → the virtual children it shows

/** Shows virtual nodes in a container, patching what it showed before. */
export function show(container, children) {
  const next = [].concat(children).filter(Boolean);
  const prev = drawn.get(container);
  if (prev) patchChildren(container, prev, next);
  else container.replaceChildren(...next.map(realize));
  drawn.set(container, next);
  return container;
}
