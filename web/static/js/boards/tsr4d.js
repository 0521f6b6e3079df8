// The circular board of TSR "4D": rings a (outside, 32 spaces) to d (4), numbered counter-clockwise
// from one ray, space k of a ring under spaces 2k-1 and 2k of the ring outside it; each player's
// Time-warp circles 1-3 beside the board. Tapping a space calls onLocation("b4"), a circle onLocation("warp").
import { el, text, drawMarks, inkOn } from "./svg.js";

const RINGS = [
  { letter: "a", size: 32, inner: 164, outer: 210 },
  { letter: "b", size: 16, inner: 120, outer: 164 },
  { letter: "c", size: 8, inner: 80, outer: 120 },
  { letter: "d", size: 4, inner: 44, outer: 80 },
];
const WIDTH = 440;
const HEIGHT = 512;
const CX = WIDTH / 2;
const CY = 218;
const START = Math.PI / 2; // space 1 of every ring starts at the top ray
const PIECE_R = 13;
export const SIDE_COLOURS = { blue: "#3b82f6", white: "#f1f5f9" };
// Each player's Time-warp circles 1-3 in a row under the board: blue on its (left) side, white on the right.
const WARP_Y = 478;
const WARP_CIRCLES = {
  blue: [[34, WARP_Y], [82, WARP_Y], [130, WARP_Y]],
  white: [[WIDTH - 130, WARP_Y], [WIDTH - 82, WARP_Y], [WIDTH - 34, WARP_Y]],
};

function polar(r, angle) {
  return [CX + r * Math.cos(angle), CY - r * Math.sin(angle)];
}

function spaceAngles(ring, number) {
  const step = (2 * Math.PI) / ring.size;
  return [START + (number - 1) * step, START + number * step];
}

// "b4" -> {ring, number}; null for anything that is not a space.
function parseSpace(name) {
  const match = /^([a-d])(\d{1,2})$/.exec(name || "");
  if (!match) return null;
  const ring = RINGS.find((r) => r.letter === match[1]);
  const number = Number(match[2]);
  return number >= 1 && number <= ring.size ? { ring, number } : null;
}

function spaceCentre(name) {
  const space = parseSpace(name);
  if (!space) return null;
  const [a1, a2] = spaceAngles(space.ring, space.number);
  return polar((space.ring.inner + space.ring.outer) / 2, (a1 + a2) / 2);
}

function sectorPath(ring, number) {
  const [a1, a2] = spaceAngles(ring, number);
  const [x1, y1] = polar(ring.outer, a1);
  const [x2, y2] = polar(ring.outer, a2);
  const [x3, y3] = polar(ring.inner, a2);
  const [x4, y4] = polar(ring.inner, a1);
  const large = a2 - a1 > Math.PI ? 1 : 0;
  return `M${x1},${y1} A${ring.outer},${ring.outer} 0 ${large} 0 ${x2},${y2} L${x3},${y3} `
    + `A${ring.inner},${ring.inner} 0 ${large} 1 ${x4},${y4} Z`;
}

export class Tsr4dBoard {
  constructor(container, { onLocation = null } = {}) {
    this.onLocation = onLocation;
    this.svg = el("svg", { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: "img", class: "tsr-board" });
    this.drawStatic();
    this.layer = el("g", { class: "dynamic" }, this.svg);
    container.replaceChildren(this.svg);
  }

  tap(location) {
    if (this.onLocation) this.onLocation(location);
  }

  drawStatic() {
    const g = el("g", { class: "static" }, this.svg);
    el("circle", { cx: CX, cy: CY, r: RINGS[0].outer + 6, fill: "#0b1018", stroke: "#334155", "stroke-width": 2 }, g);
    RINGS.forEach((ring, index) => {
      for (let number = 1; number <= ring.size; number += 1) {
        const name = `${ring.letter}${number}`;
        const shade = (number + index) % 2 ? "#1a2230" : "#1f2937";
        const sector = el("path", {
          d: sectorPath(ring, number), fill: shade, stroke: "#3b4a60", "stroke-width": 1.2,
          class: "space", "data-space": name, style: "cursor:pointer",
        }, g);
        el("title", {}, sector).textContent = name;
        sector.addEventListener("click", () => this.tap(name));
        const [a1, a2] = spaceAngles(ring, number);
        const [lx, ly] = polar(ring.outer - 5, (a1 + a2) / 2);
        text(g, name, { class: "space-label", x: lx, y: ly });
      }
    });
    el("circle", { cx: CX, cy: CY, r: RINGS[3].inner, fill: "#10151d", stroke: "#3b4a60" }, g);
    text(g, "4D", { x: CX, y: CY, class: "piece-letter", fill: "#64748b", style: "font-size:20px" });
    for (const [side, circles] of Object.entries(WARP_CIRCLES)) {
      const [firstX] = circles[0];
      text(g, `${side} Time-warp`, { x: firstX - 20, y: WARP_Y - 30, class: "warp-title", "text-anchor": "start" });
      circles.forEach(([x, y], index) => {
        const circle = el("circle", {
          cx: x, cy: y, r: 19, fill: "#10151d", stroke: SIDE_COLOURS[side], "stroke-width": 1.5,
          "stroke-dasharray": "3 3", class: "warp-circle", "data-warp": `${side}-${index + 1}`, style: "cursor:pointer",
        }, g);
        el("title", {}, circle).textContent = `${side} Time-warp circle ${index + 1}`;
        circle.addEventListener("click", () => this.tap("warp"));
        text(g, String(index + 1), { x: x + 14, y: y + 15, class: "space-label", style: "font-size:10px" });
      });
    }
  }

  // Where a location is drawn: a space's centre, or the Time-warp circle of the player to move.
  at(location, state) {
    if (location === "warp") {
      if (!state) return null;
      const side = state.board.to_move;
      const slot = state.board.warp[side];
      const circle = WARP_CIRCLES[side][slot ? slot.circle - 1 : 0];
      return circle;
    }
    return spaceCentre(location);
  }

  drawPiece(layer, [x, y], side, kind, attrs) {
    const fill = SIDE_COLOURS[side];
    el("circle", { class: "piece", cx: x, cy: y, r: PIECE_R, fill, stroke: side === "white" ? "#64748b" : "#1e3a8a", ...attrs }, layer);
    text(layer, kind, { class: "piece-letter", x, y, fill: inkOn(fill) });
  }

  // view: {state (the tabletop state), movable, targets, captures, selected, lastMove}
  render(view) {
    const layer = el("g", { class: "dynamic" });
    const state = view.state;
    if (state) {
      const board = state.board;
      for (const [side, space] of Object.entries(board.markers || {})) {
        const c = spaceCentre(space);
        if (!c) continue;
        const [x, y] = [c[0] + 11, c[1] - 11];
        el("rect", {
          x: x - 5, y: y - 5, width: 10, height: 10, transform: `rotate(45 ${x} ${y})`, fill: "#0b1018",
          stroke: SIDE_COLOURS[side], "stroke-width": 2, class: "marker", "data-marker": `${side}-${space}`, "pointer-events": "none",
        }, layer);
      }
      for (const piece of board.pieces || []) {
        const c = spaceCentre(piece.space);
        if (c) this.drawPiece(layer, c, piece.player, piece.kind, { "data-piece": piece.space, "data-kind": piece.kind, "data-player": piece.player });
      }
      for (const [side, slot] of Object.entries(board.warp || {})) {
        if (!slot) continue;
        this.drawPiece(layer, WARP_CIRCLES[side][slot.circle - 1], side, slot.kind, { "data-warped": `${side}-${slot.circle}` });
      }
      const last = view.lastMove;
      const lastAt = last && last.to && last.to !== "warp" ? spaceCentre(last.to) : null;
      if (lastAt) el("circle", { class: "last-mark", cx: lastAt[0], cy: lastAt[1], r: PIECE_R + 4 }, layer);
    }
    drawMarks(layer, view, (name) => this.at(name, state), PIECE_R + 2);
    this.layer.replaceWith(layer);
    this.layer = layer;
  }
}
