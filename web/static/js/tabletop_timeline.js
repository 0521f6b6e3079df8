// Timeline played by tapping: rooks and bishops on the four days, timelines of chits.
import { startTabletop } from "./tabletop_common.js";
import { TimelineBoard, PIECE_COLOURS, TEAM_COLOURS } from "./boards/timeline.js";
import { preferredLayout } from "./boards/index.js";

const $ = (id) => document.getElementById(id);
const capitalised = (word) => word.charAt(0).toUpperCase() + word.slice(1);

function renderExtra(state) {
  const pills = (state.board.pieces || []).map((piece) => {
    const pill = document.createElement("span");
    pill.className = "tt-pill";
    pill.dataset.piece = piece.colour;
    const swatch = document.createElement("i");
    swatch.className = "swatch";
    swatch.style.background = PIECE_COLOURS[piece.colour];
    const where = piece.square ? `on ${piece.square}` : `captured by ${piece.captured_by}`;
    pill.append(swatch, `${capitalised(piece.colour)} ${piece.kind} · ${where} · ${piece.timeline.length} chits`);
    return pill;
  });
  $("piece-list").replaceChildren(...pills);
}

startTabletop({
  game: "timeline",
  makeBoard: (container, onLocation) => new TimelineBoard(container, { onLocation, layout: preferredLayout() }),
  sideColour: (state, side) => TEAM_COLOURS[state.sides[side]],
  sideName: (state, side) => `${capitalised(state.sides[side])} team`,
  destination: (move) => move.to,
  describeMove: (move) => (move.captures ? `captures the ${move.captures} piece` : ""),
  renderExtra,
  legend: () => [[TEAM_COLOURS.warm, "Warm: orange, red rooks; white, yellow bishops"],
    [TEAM_COLOURS.cool, "Cool: black, blue rooks; green, purple bishops"], ["#94a3b8", "▪ chit"]],
  newGame: (form) => {
    const options = { "crossing-rule": form.elements["crossing-rule"].value };
    const position = form.elements.position.value.trim();
    if (position) options.position = position;
    return { kind: "timeline", options };
  },
});
