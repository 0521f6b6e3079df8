// The GRYB bandanna as printed: the head node in the middle, every node's quadrangle of four
// children around it (G north-west, R north-east, Y south-east, B south-west), four levels deep.
// Node l1..lk sits at sum s_i * d(l_i) with s = 120, 60, 30, 15 mm, as on the cloth.
// render() takes a tokens map {node name: ring colour 0|1} -- from a hand-played game or read
// by the camera -- so the same drawing shows both.
import { el, drawMarks } from "./svg.js";

const STEPS = [120, 60, 30, 15];
const DIRECTIONS = { G: [-1, 1], R: [1, 1], Y: [1, -1], B: [-1, -1] };
const SPOT_COLOURS = { G: "#22c55e", R: "#ef4444", Y: "#facc15", B: "#3b82f6" };
const SPOT_RADIUS = [9, 8, 7, 6, 5];
const OUTLINE_WIDTH = [3, 2.2, 1.6, 1.1];
const EXTENT = 246;
export const RING_COLOURS = ["#f8fafc", "#fb923c"];
const RING_R = 9.5;
const LETTERS = "GRYB";

// Every node name in level order: "0", "G", "R", ..., "BBBB".
export const NODES = (() => {
  const names = [""];
  for (let level = 1; level <= 4; level += 1) {
    for (const parent of names.filter((n) => n.length === level - 1)) {
      for (const letter of LETTERS) names.push(parent + letter);
    }
  }
  return names.map((n) => n || "0");
})();

// Where a node is printed, in mm from the cloth's centre (x east, y south for SVG).
export function nodePosition(name) {
  const path = name === "0" ? "" : name;
  let x = 0;
  let y = 0;
  for (let i = 0; i < path.length; i += 1) {
    const d = DIRECTIONS[path[i]];
    if (!d) return null;
    x += STEPS[i] * d[0];
    y -= STEPS[i] * d[1];
  }
  return [x, y];
}

export class GrybBoard {
  constructor(container, { onLocation = null, onPointClick = null } = {}) {
    // onPointClick: the dashboard's board interface (boards/index.js), onLocation: the game pages'.
    this.onLocation = onLocation || onPointClick;
    this.svg = el("svg", {
      viewBox: `${-EXTENT} ${-EXTENT} ${2 * EXTENT} ${2 * EXTENT}`, role: "img", class: "gryb-board",
    });
    this.drawStatic();
    this.layer = el("g", { class: "dynamic" }, this.svg);
    container.replaceChildren(this.svg);
  }

  drawStatic() {
    const g = el("g", { class: "static" }, this.svg);
    el("rect", { x: -EXTENT, y: -EXTENT, width: 2 * EXTENT, height: 2 * EXTENT, rx: 16, fill: "#14110f" }, g);
    // Quadrangles first (under the spots), the deepest thinnest; faint fills stack up so each level
    // down reads a little lighter, as the printed layers do.
    for (const name of NODES) {
      const path = name === "0" ? "" : name;
      if (path.length >= 4) continue;
      const corners = LETTERS.split("").map((c) => nodePosition(path + c));
      el("polygon", {
        points: corners.map((p) => p.join(",")).join(" "), fill: "rgba(255, 244, 214, 0.035)", stroke: "#8b8375",
        "stroke-width": OUTLINE_WIDTH[path.length], opacity: 0.85, "data-quadrangle": name,
      }, g);
    }
    for (const name of NODES) {
      const [x, y] = nodePosition(name);
      const level = name === "0" ? 0 : name.length;
      const focus = name === "0" ? null : name[name.length - 1];
      el("circle", {
        cx: x, cy: y, r: SPOT_RADIUS[level], fill: focus ? SPOT_COLOURS[focus] : "#e7e5e4",
        stroke: "#0c0a09", "stroke-width": 1, class: "spot", "data-node": name, "pointer-events": "none",
      }, g);
      const hit = el("circle", { cx: x, cy: y, r: level === 4 ? 14 : 16, class: "hit", "data-hit": name }, g);
      el("title", {}, hit).textContent = name;
      hit.addEventListener("click", () => this.onLocation && this.onLocation(name));
    }
  }

  // view (a hand-played game): {state, movable, targets, captures, selected, lastMove {to: [nodes]}}
  // view (the dashboard, camera-read): {tokens {node: colour}, palette [css], lastMove "GR",
  //   mismatch [nodes], hidden [nodes], vectors [[nodes]] (GRYBs), selected}
  render(view) {
    const layer = el("g", { class: "dynamic" });
    const board = view.state ? view.state.board : {};
    const tokens = view.tokens || board.tokens || {};
    const colours = view.palette && view.palette.length >= 2 ? view.palette : RING_COLOURS;
    const at = (name) => (typeof name === "string" ? nodePosition(name) : null);
    const lines = view.vectors || (view.state && view.state.winner ? view.state.winner.lines : []) || [];
    for (const line of lines) {
      const points = line.map(at).filter(Boolean);
      if (points.length > 2) points.push(points[0]);
      el("polyline", { class: "vector-halo", points: points.map((p) => p.join(",")).join(" "), "data-gryb": line.join(" ") }, layer);
    }
    // GRYBs standing on the board: their quadrangle outlined in the owner's ring colour.
    for (const gryb of (view.state && view.state.grybs) || []) {
      if (!gryb.nodes.every((node) => tokens[node] === gryb.colour)) continue;
      el("polygon", {
        points: gryb.nodes.map((node) => at(node).join(",")).join(" "), fill: "none",
        stroke: colours[gryb.colour] || "#fff", "stroke-width": 4, opacity: 0.9, "pointer-events": "none",
        "data-gryb-made": gryb.quadrangle,
      }, layer);
    }
    for (const [name, colour] of Object.entries(tokens)) {
      const c = at(name);
      if (!c) continue;
      const css = colours[colour] || "#ccc";
      el("circle", { cx: c[0], cy: c[1], r: RING_R, fill: "none", stroke: "#000", "stroke-width": 6, opacity: 0.55, "pointer-events": "none" }, layer);
      el("circle", {
        class: "ring", cx: c[0], cy: c[1], r: RING_R, fill: "none", stroke: css, "stroke-width": 3.6,
        "pointer-events": "none", "data-ring": name, "data-colour": colour,
        "stroke-dasharray": board.transit === name ? "4 3" : null,
      }, layer);
    }
    for (const [player, name] of Object.entries(view.markers || board.markers || {})) {
      const c = at(name);
      if (!c) continue;
      const [x, y] = c;
      el("path", {
        d: `M${x},${y - 15} l6,10 h-12 z`, fill: colours[player] || "#ccc", stroke: "#000", "stroke-width": 1,
        "pointer-events": "none", "data-marker": `${player}-${name}`,
      }, layer);
    }
    const last = view.lastMove && typeof view.lastMove === "object" ? view.lastMove.to : view.lastMove;
    for (const name of Array.isArray(last) ? last : [last]) {
      const c = at(name);
      if (c) el("circle", { class: "last-mark", cx: c[0], cy: c[1], r: RING_R + 4 }, layer);
    }
    for (const name of view.hidden || []) {
      const c = at(name);
      if (c) el("rect", { class: "hidden-mark", x: c[0] - 11, y: c[1] - 11, width: 22, height: 22, rx: 4 }, layer);
    }
    for (const name of view.mismatch || []) {
      const c = at(name);
      if (c) el("rect", { class: "mismatch-mark", x: c[0] - 12, y: c[1] - 12, width: 24, height: 24, rx: 5, "data-mismatch": name }, layer);
    }
    drawMarks(layer, view, at, RING_R + 1.5);
    this.layer.replaceWith(layer);
    this.layer = layer;
  }
}

