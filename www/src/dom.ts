// The only way this panel makes DOM: elements built node by node, with every
// string from an event set as text (a Text node or an attribute), never parsed
// as HTML. There is no innerHTML anywhere in www/src; a test feeds
// `<img src=x onerror=…>` payloads through the whole page to keep it so.

/** A child: a node, text (rendered as text), or nothing. */
export type Child = Node | string | number | null | undefined | false | Child[];

/** Attributes: `class`, `data-*`, `aria-*`, other attributes, and `on<event>` handlers. */
export type Attrs = Record<string, string | number | boolean | null | undefined | EventListener>;

/**
 * Creates an element. Strings become Text nodes, so markup in them shows as
 * markup characters.
 *
 * @example
 * h('td', { class: 'num' }, step.number)
 * h('button', { type: 'button', onclick: () => select(n) }, 'Step ', n)
 */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs: Attrs | null = null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  if (attrs) setAttrs(el, attrs);
  append(el, children);
  return el;
}

/** The same for SVG elements (the usage chart). */
export function svg(tag: string, attrs: Attrs | null = null, ...children: Child[]): SVGElement {
  const el = document.createElementNS('http://www.w3.org/2000/svg', tag);
  if (attrs) setAttrs(el, attrs);
  append(el, children);
  return el;
}

function setAttrs(el: Element, attrs: Attrs): void {
  for (const [name, value] of Object.entries(attrs)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') {
      el.addEventListener(name.slice(2), value);
    } else {
      el.setAttribute(name, value === true ? '' : String(value));
    }
  }
}

function append(el: Element, children: Child[]): void {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(el, child);
    else if (child instanceof Node) el.appendChild(child);
    else el.appendChild(document.createTextNode(String(child)));
  }
}

/** Replaces all children of `el` (cheaper to read than a loop of removeChild). */
export function replaceChildren(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  append(el, children);
}

/**
 * Said where a view needs `stepline/devtools` and the run is shown by `stepline` while
 * that entry loads (www/src/devtools.ts): `what` is what will show.
 */
export function devtoolsLoading(what: string): HTMLElement {
  return h('p', { class: 'muted', 'data-testid': 'devtools-loading', role: 'status' }, `Loading the devtools (stepline/devtools) for ${what}…`);
}
