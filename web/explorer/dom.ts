// Building the page: elements made one by one, every piece of data set as text (textContent, an
// attribute's value), never parsed as HTML. Nothing in the explorer uses innerHTML or its kin.

export type Child = Node | string | number | null | undefined | false | readonly Child[];

/** Attributes: strings set as attributes, `on*` functions as listeners; undefined and false skipped. */
export type Attrs = Record<string, string | number | boolean | undefined | ((e: Event) => void)>;

function append(parent: Node, child: Child): void {
  if (child === null || child === undefined || child === false) return;
  if (Array.isArray(child)) { for (const c of child as readonly Child[]) append(parent, c); return; }
  parent.appendChild(child instanceof Node ? child : document.createTextNode(String(child)));
}

/** An element: `h('a', { href: '#/x', class: 'y' }, 'text', other)`. */
export function h<K extends keyof HTMLElementTagNameMap>(tag: K, attrs?: Attrs | null, ...children: Child[]): HTMLElementTagNameMap[K] {
  const el = document.createElement(tag);
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === false) continue;
    if (typeof value === 'function') el.addEventListener(name.slice(2), value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const c of children) append(el, c);
  return el;
}

/** Replaces an element's children. */
export function fill(el: Element, ...children: Child[]): void {
  el.replaceChildren();
  for (const c of children) append(el, c);
}

/** A link inside the explorer (`#/tx/<hash>`, `#/account/G…`). */
export function link(route: string, ...children: Child[]): HTMLAnchorElement {
  return h('a', { href: `#/${route}` }, ...children);
}

/** A long identifier shortened in the middle, whole in its title. */
export function short(id: string, keep = 6): HTMLSpanElement {
  const text = id.length > keep * 2 + 1 ? `${id.slice(0, keep)}…${id.slice(-keep)}` : id;
  return h('span', { class: 'mono', title: id }, text);
}

/** A table with a header row. */
export function table(head: readonly string[], rows: readonly Child[][], attrs?: Attrs): HTMLTableElement {
  return h('table', attrs ?? null,
    h('thead', null, h('tr', null, head.map((c) => h('th', null, c)))),
    h('tbody', null, rows.map((r) => h('tr', null, r.map((c) => h('td', null, c))))));
}

/** A definition list of label / value pairs (pairs with an undefined value are left out). */
export function dl(pairs: ReadonlyArray<readonly [string, Child]>): HTMLDListElement {
  return h('dl', { class: 'fields' }, pairs.filter(([, v]) => v !== undefined).map(([k, v]) => [h('dt', null, k), h('dd', null, v)]));
}

/** A page's main fields, in a box. */
export function overview(pairs: ReadonlyArray<readonly [string, Child]>): HTMLDivElement {
  return h('div', { class: 'overview' }, dl(pairs));
}

export function section(title: string, ...children: Child[]): HTMLElement {
  return h('section', null, h('h2', null, title), ...children);
}

/** A note in a muted box: why something is not shown. */
export function note(...children: Child[]): HTMLParagraphElement {
  return h('p', { class: 'note' }, ...children);
}

export function errorBox(e: unknown): HTMLParagraphElement {
  return h('p', { class: 'error' }, e instanceof Error ? e.message : String(e));
}

/** A collapsed block of JSON (pretty-printed, as text). */
export function rawJson(label: string, value: unknown): HTMLDetailsElement {
  return h('details', { class: 'raw' }, h('summary', null, label), h('pre', null, JSON.stringify(value, null, 2)));
}
