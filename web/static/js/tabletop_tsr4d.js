// TSR "4D" played by tapping: pieces on the circular board, Time-warp circles, turn actions.
import { startTabletop } from "./tabletop_common.js";
import { Tsr4dBoard, SIDE_COLOURS } from "./boards/tsr4d.js";

const $ = (id) => document.getElementById(id);
const KIND_NAMES = { T: "Time-Lord", G: "Guardian", R: "Ranger", W: "Warrior" };
const capitalised = (word) => word.charAt(0).toUpperCase() + word.slice(1);

const describe = (move) => {
  switch (move.type) {
    case "time-warp": return "Time-warp";
    case "beam-down": return "beam down";
    case "stay-in-warp": return "stay in Time-warp";
    case "suicide-capture": return `capture the ${KIND_NAMES[move.capture.kind]}`;
    case "end-turn": return "end the turn";
    default: return move.capture ? `captures the ${KIND_NAMES[move.capture.kind]} on ${move.capture.space}` : "";
  }
};

// What the player to move still has to do, in the rules' words.
function turnHelp(state) {
  const progress = state.turn_progress || {};
  const side = state.board.to_move;
  const slot = state.board.warp[side];
  const todo = [];
  if (!progress.moved) todo.push("move one piece");
  if (slot && !progress.warped && !progress.warp_resolved) {
    todo.push(slot.circle < 3
      ? `beam down the ${KIND_NAMES[slot.kind]} from circle ${slot.circle} or keep it in Time-warp (tap the circle)`
      : `beam down the ${KIND_NAMES[slot.kind]}: circle 3 is the last (tap the circle)`);
  }
  if (!slot && !progress.warped) todo.push("Time-warp a piece that has not moved (tap it, then its Time-warp circle)");
  const end = (state.actions || []).some((a) => a.type === "end-turn");
  if (!todo.length) return "All done: end the turn.";
  return `${capitalised(todo.join("; "))}${end ? " — or end the turn now" : ""}.`;
}

function renderExtra(state, page) {
  const progress = state.turn_progress || {};
  const done = [progress.moved && "moved", progress.warped && "warped", progress.warp_resolved && "beamed down"].filter(Boolean);
  $("turn-progress").textContent = done.length ? `done: ${done.join(", ")}` : "nothing done yet";
  $("turn-help").textContent = turnHelp(state);
  const buttons = (state.actions || []).map((move) => {
    const button = document.createElement("button");
    button.type = "button";
    button.className = move.type === "end-turn" ? "primary" : "";
    button.textContent = move.type === "end-turn" ? "End turn" : `${move.notation} · ${describe(move)}`;
    button.dataset.notation = move.notation;
    button.addEventListener("click", () => page.play({ notation: move.notation }));
    return button;
  });
  $("turn-actions").replaceChildren(...buttons);
  $("turn-card").hidden = state.result !== "ongoing";
  const captured = state.captured || [];
  $("captured-list").replaceChildren(...(captured.length ? captured.map((piece) => {
    const pill = document.createElement("span");
    pill.className = "tt-pill";
    const swatch = document.createElement("i");
    swatch.className = "swatch";
    swatch.style.background = SIDE_COLOURS[piece.player];
    pill.append(swatch, `${capitalised(piece.player)} ${KIND_NAMES[piece.kind]}`);
    return pill;
  }) : [Object.assign(document.createElement("span"), { className: "muted small", textContent: "None yet." })]));
}

startTabletop({
  game: "tsr4d",
  makeBoard: (container, onLocation) => new Tsr4dBoard(container, { onLocation }),
  sideColour: (state, side) => SIDE_COLOURS[state.sides[side]],
  sideName: (state, side) => capitalised(state.sides[side]),
  destination: (move) => (move.type === "move" || move.type === "beam-down" || move.type === "time-warp" ? move.to : null),
  describeMove: describe,
  renderExtra,
  legend: () => [[SIDE_COLOURS.blue, "Blue"], [SIDE_COLOURS.white, "White"], ["#0b1018", "◇ Time-warp Marker"]],
  newGame: (form) => {
    const options = { "suicide-rule": form.elements["suicide-rule"].value };
    const position = form.elements.position.value.trim();
    if (position) options.position = position;
    return { kind: "tsr4d", options };
  },
});
