// Small SVG helpers the hand-played game boards share.
export const SVG_NS = "http://www.w3.org/2000/svg";

export function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) {
    if (value !== null && value !== undefined) node.setAttribute(key, value);
  }
  if (parent) parent.appendChild(node);
  return node;
}

export function text(parent, content, attrs) {
  const node = el("text", attrs, parent);
  node.textContent = content;
  return node;
}

// The highlight marks every board draws the same way: targets, captures, the selection, movable pieces.
// Movable pieces are ringed only while they are a choice: when (nearly) every place is open
// (placing rings anywhere) the rings would say nothing and hide the board.
const MAX_MOVABLE_MARKS = 64;

export function drawMarks(layer, view, at, radius) {
  const movable = view.movable || [];
  for (const name of movable.length <= MAX_MOVABLE_MARKS ? movable : []) {
    const c = at(name);
    if (c) el("circle", { class: "movable-mark", cx: c[0], cy: c[1], r: radius + 2, "data-movable": name }, layer);
  }
  const captures = new Set(view.captures || []);
  for (const name of view.targets || []) {
    const c = at(name);
    if (!c) continue;
    el("circle", { class: captures.has(name) ? "capture-mark" : "target-mark", cx: c[0], cy: c[1], r: radius, "data-target": name }, layer);
  }
  const selected = at(view.selected);
  if (selected) el("circle", { class: "selected-mark", cx: selected[0], cy: selected[1], r: radius + 3, "data-selected": view.selected }, layer);
}

// Black or white letters, whichever reads better on ``css`` (a #rrggbb colour).
export function inkOn(css) {
  const hex = /^#([0-9a-f]{6})$/i.exec(css || "");
  if (!hex) return "#0f172a";
  const n = parseInt(hex[1], 16);
  const luminance = 0.299 * (n >> 16) + 0.587 * ((n >> 8) & 255) + 0.114 * (n & 255);
  return luminance > 150 ? "#0f172a" : "#f8fafc";
}
