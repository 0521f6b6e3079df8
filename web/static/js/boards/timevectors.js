// The Time Vectors board drawn as on the real one: tiers S..P top to bottom, each tier's
// four 4x4 grids NW NE / SW SE with the post gap between them, and N/E/S/W marks.
// layout "stack" puts the tiers in one column (phones); "grid" in two (S R / Q P, wide screens).
const SVG_NS = "http://www.w3.org/2000/svg";
const TIERS = "PQRS";
const COLUMNS = "ABCDEFGH";
const CELL = 24;
const GAP = 14; // the centre post's gap between the two grids of a tier
const PAD = 16; // room for the compass letters
const LEFT = 34; // room for the tier letter
const TIER_GAP = 10;
const GRID = 8 * CELL + GAP;
const TIER_HEIGHT = GRID + 2 * PAD;
const TIER_WIDTH = LEFT + GRID + 2 * PAD;
const LAYOUTS = {
  stack: { columns: 1, rows: 4 },
  grid: { columns: 2, rows: 2 },
};

function el(name, attrs = {}, parent = null) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  if (parent) parent.appendChild(node);
  return node;
}

// "A3Q" -> {column 0..7, row 0..7, tier 0..3}; null for anything else.
export function parsePoint(name) {
  if (typeof name !== "string" || name.length !== 3) return null;
  const column = COLUMNS.indexOf(name[0].toUpperCase());
  const row = Number(name[1]) - 1;
  const tier = TIERS.indexOf(name[2].toUpperCase());
  if (column < 0 || !(row >= 0 && row < 8) || tier < 0) return null;
  return { column, row, tier };
}

export function pointName(column, row, tier) {
  return `${COLUMNS[column]}${row + 1}${TIERS[tier]}`;
}

export class TimeVectorsBoard {
  constructor(container, { onPointClick = null, layout = "stack" } = {}) {
    this.onPointClick = onPointClick;
    this.layout = LAYOUTS[layout] || LAYOUTS.stack;
    const width = this.layout.columns * TIER_WIDTH + (this.layout.columns - 1) * TIER_GAP;
    const height = this.layout.rows * TIER_HEIGHT + (this.layout.rows - 1) * TIER_GAP;
    this.svg = el("svg", { viewBox: `0 0 ${width} ${height}`, role: "img", class: "tv-board" });
    this.cells = new Map();
    this.drawStatic();
    this.layer = el("g", { class: "dynamic" }, this.svg);
    container.replaceChildren(this.svg);
  }

  // Top-left corner of a tier's block: the top tier (S) first, in reading order.
  tierOrigin(tier) {
    const index = 3 - tier;
    const column = index % this.layout.columns;
    const row = Math.floor(index / this.layout.columns);
    return [column * (TIER_WIDTH + TIER_GAP), row * (TIER_HEIGHT + TIER_GAP)];
  }

  // Centre of a point in board-drawing units.
  centre({ column, row, tier }) {
    const [left, top] = this.tierOrigin(tier);
    const x = left + LEFT + PAD + column * CELL + (column >= 4 ? GAP : 0) + CELL / 2;
    const y = top + PAD + (7 - row) * CELL + (row < 4 ? GAP : 0) + CELL / 2;
    return [x, y];
  }

  drawStatic() {
    for (let tier = 3; tier >= 0; tier -= 1) {
      const [left, top] = this.tierOrigin(tier);
      const g = el("g", { class: "tier", "data-tier": TIERS[tier] }, this.svg);
      el("rect", { class: "tier-bg", x: left + LEFT, y: top, width: GRID + 2 * PAD, height: TIER_HEIGHT, rx: 10 }, g);
      el("text", { class: "tier-name", x: left + 8, y: top + TIER_HEIGHT / 2 + 5 }, g).textContent = TIERS[tier];
      const mid = left + LEFT + PAD + GRID / 2;
      const marks = [["N", mid, top + PAD / 2], ["S", mid, top + TIER_HEIGHT - PAD / 2],
        ["W", left + LEFT + PAD / 2, top + TIER_HEIGHT / 2], ["E", left + LEFT + PAD + GRID + PAD / 2, top + TIER_HEIGHT / 2]];
      for (const [letter, x, y] of marks) el("text", { class: "compass", x, y }, g).textContent = letter;
      for (let column = 0; column < 8; column += 1) {
        for (let row = 0; row < 8; row += 1) {
          const name = pointName(column, row, tier);
          const [x, y] = this.centre({ column, row, tier });
          const cell = el("rect", {
            class: "cell", x: x - CELL / 2, y: y - CELL / 2, width: CELL, height: CELL, "data-point": name,
          }, g);
          el("title", {}, cell).textContent = name;
          cell.addEventListener("click", () => this.onPointClick && this.onPointClick(name));
          this.cells.set(name, cell);
        }
      }
    }
  }

  // view: {tokens {name: colour}, palette [css], lastMove, threats {colour: [names]}, showThreats,
  //        mismatch [names], hidden [names], vectors [[names]], vectorColour, selected}
  render(view) {
    const layer = el("g", { class: "dynamic" });
    const palette = view.palette || [];
    const at = (name) => { const p = parsePoint(name); return p ? this.centre(p) : null; };
    for (const cell of this.cells.values()) cell.classList.remove("selected");
    if (view.selected && this.cells.has(view.selected)) this.cells.get(view.selected).classList.add("selected");

    if (view.showThreats && view.threats) {
      for (const [colour, names] of Object.entries(view.threats)) {
        for (const name of names || []) {
          const c = at(name);
          if (c) el("circle", { class: "threat", cx: c[0], cy: c[1], r: 8, stroke: palette[colour] || "#fff", "data-threat": name }, layer);
        }
      }
    }
    for (const [name, colour] of Object.entries(view.tokens || {})) {
      const c = at(name);
      if (!c) continue;
      el("circle", { class: "token", cx: c[0], cy: c[1], r: 8.5, fill: palette[colour] || "#ccc", "data-token": name }, layer);
    }
    for (const name of view.hidden || []) {
      const c = at(name);
      if (c) el("rect", { class: "hidden-mark", x: c[0] - 10, y: c[1] - 10, width: 20, height: 20, rx: 3 }, layer);
    }
    const last = at(view.lastMove);
    if (last) el("circle", { class: "last", cx: last[0], cy: last[1], r: 11 }, layer);
    for (const name of view.mismatch || []) {
      const c = at(name);
      if (c) el("rect", { class: "mismatch-mark", x: c[0] - 11, y: c[1] - 11, width: 22, height: 22, rx: 4, "data-mismatch": name }, layer);
    }
    for (const vector of view.vectors || []) {
      const points = vector.map(at).filter(Boolean);
      const d = points.map((p) => p.join(",")).join(" ");
      el("polyline", { class: "vector-halo", points: d }, layer);
      el("polyline", { class: "vector", points: d, stroke: palette[view.vectorColour] || "#fff", "data-vector": vector.join(" ") }, layer);
      for (const p of points) el("circle", { class: "vector-point", cx: p[0], cy: p[1], r: 11 }, layer);
    }
    this.layer.replaceWith(layer);
    this.layer = layer;
  }
}
