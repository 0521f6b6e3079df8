// Timeline's four 4x4x4 boards drawn on the Time Vectors layout (it is the same 4x4x4x4 space):
// tiers S..P are the levels, the quadrants the days (Monday NW, Tuesday NE, Wednesday SE,
// Thursday SW). Each piece shows its colour and letter; its timeline is a trail of chits.
import { TimeVectorsBoard, parsePoint } from "./timevectors.js";
import { el, text, drawMarks, inkOn } from "./svg.js";

export const PIECE_COLOURS = {
  orange: "#f97316", red: "#ef4444", white: "#f8fafc", yellow: "#facc15",
  black: "#1f2937", blue: "#3b82f6", green: "#22c55e", purple: "#a855f7",
};
export const TEAM_COLOURS = { warm: "#f97316", cool: "#3b82f6" };
const DAYS = [["Mon", "start", 0, 7], ["Tue", "end", 7, 7], ["Wed", "end", 7, 0], ["Thu", "start", 0, 0]];
const CHIT = 6;

export class TimelineBoard extends TimeVectorsBoard {
  constructor(container, { onLocation = null, layout = "stack" } = {}) {
    super(container, { onPointClick: (name) => onLocation && onLocation(name), layout });
    this.svg.classList.add("timeline-board");
    this.drawDays();
  }

  // Day names in the corners of every tier, where each quadrant (day) begins.
  drawDays() {
    const [x0] = this.centre({ column: 0, row: 0, tier: 0 });
    const [x1] = this.centre({ column: 1, row: 0, tier: 0 });
    const cell = x1 - x0;
    const g = el("g", { class: "days" });
    this.svg.insertBefore(g, this.layer);
    for (let tier = 0; tier < 4; tier += 1) {
      for (const [day, anchor, column, row] of DAYS) {
        const [x, y] = this.centre({ column, row, tier });
        const dx = anchor === "start" ? -cell / 2 : cell / 2;
        const dy = row === 7 ? -cell / 2 - 4 : cell / 2 + 10;
        text(g, day, { x: x + dx, y: y + dy, class: "tier-sub", "text-anchor": anchor });
      }
    }
  }

  pointAt(name) {
    const point = parsePoint(name);
    return point ? this.centre(point) : null;
  }

  // view: {state (the tabletop state), movable, targets, captures, selected, lastMove}
  render(view) {
    const layer = el("g", { class: "dynamic" });
    const pieces = (view.state && view.state.board.pieces) || [];
    const seen = new Map(); // square -> chits drawn there, to offset a second one
    for (const piece of pieces) {
      const colour = PIECE_COLOURS[piece.colour] || "#ccc";
      const points = piece.timeline.map((name) => this.pointAt(name)).filter(Boolean);
      if (points.length > 1) {
        el("polyline", {
          points: points.map((p) => p.join(",")).join(" "), fill: "none", stroke: colour, "stroke-width": 2,
          opacity: 0.45, "stroke-linejoin": "round", "pointer-events": "none", "data-timeline": piece.colour,
        }, layer);
      }
      piece.timeline.forEach((name, index) => {
        const c = this.pointAt(name);
        if (!c) return;
        const count = seen.get(name) || 0;
        seen.set(name, count + 1);
        const offset = count * (CHIT + 1);
        el("rect", {
          x: c[0] - 10 + offset, y: c[1] + 10 - CHIT - 1, width: CHIT, height: CHIT, rx: 1, fill: colour,
          stroke: "#0b0f14", "stroke-width": 0.8, "pointer-events": "none",
          "data-chit": `${piece.colour}-${index}`, "data-square": name,
        }, layer);
      });
    }
    for (const piece of pieces) {
      if (!piece.square) continue;
      const c = this.pointAt(piece.square);
      if (!c) continue;
      const colour = PIECE_COLOURS[piece.colour] || "#ccc";
      el("circle", {
        class: "piece", cx: c[0], cy: c[1], r: 8.5, fill: colour,
        stroke: piece.team === "warm" ? "#fed7aa" : "#bfdbfe", "data-piece": piece.square, "data-colour": piece.colour,
      }, layer);
      text(layer, piece.kind === "rook" ? "R" : "B", { class: "piece-letter", x: c[0], y: c[1], fill: inkOn(colour), style: "font-size:9px" });
    }
    const last = view.lastMove && this.pointAt(view.lastMove.to);
    if (last) el("circle", { class: "last-mark", cx: last[0], cy: last[1], r: 11.5 }, layer);
    drawMarks(layer, view, (name) => this.pointAt(name), 10);
    this.layer.replaceWith(layer);
    this.layer = layer;
  }
}
