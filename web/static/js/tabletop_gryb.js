// The GRYB games played by tapping: rings on the bandanna, scores per colour and the virtual dice.
// The "camera's bandanna" switch shows what the camera reads when it watches a GRYB board.
import { startTabletop } from "./tabletop_common.js";
import { GrybBoard, RING_COLOURS } from "./boards/gryb.js";
import { getJSON } from "./api.js";
import { toast } from "./ui.js";
import { ring } from "./alerts.js";

const $ = (id) => document.getElementById(id);
const DIE_NAMES = { colour: "four-colour die", node: "GRYB Dice II (any node)", leaf: "fourth-level die" };
const FACE_COLOURS = { G: "#22c55e", R: "#ef4444", Y: "#facc15", B: "#3b82f6" };
let lastRollShown = null;

const playerName = (state, side) => state.sides[side].replace(/^p/, "P");

function scoreCard(state, side) {
  const card = document.createElement("div");
  card.className = `tt-score${state.result === "ongoing" && state.to_move === side ? " to-move" : ""}`;
  card.dataset.side = String(side);
  const head = document.createElement("div");
  head.className = "row";
  const swatch = document.createElement("i");
  swatch.className = "swatch";
  swatch.style.background = RING_COLOURS[side];
  head.append(swatch, playerName(state, side));
  const score = document.createElement("div");
  score.className = "big";
  score.textContent = `${state.scores[side]} pts`;
  const detail = document.createElement("div");
  detail.className = "muted small";
  const grybs = (state.grybs || []).filter((g) => g.colour === side).length;
  const pile = (state.piles || [])[side] || [0, 0];
  // Captured, gathered or assimilated pieces (Squirrel Race nuts, Square Deal GRYBs, Blobs, The Borg).
  const piled = pile[0] + pile[1] ? ` · pile: ${pile[0]} white, ${pile[1]} orange` : "";
  detail.textContent = `${state.in_hand[side]} rings in hand · ${grybs} GRYB${grybs === 1 ? "" : "s"}${piled}`;
  card.append(head, score, detail);
  return card;
}

function renderDie(state) {
  const face = $("die-face");
  const roll = state.last_roll;
  const value = state.roll || (roll && roll.value) || "–";
  face.textContent = value;
  const focus = value.length ? value[value.length - 1] : "";
  face.style.background = FACE_COLOURS[focus] || "#f1f5f9";
  const key = `${state.id}:${(state.moves || []).length}:${value}`;
  if (roll && key !== lastRollShown) {
    face.classList.remove("rolling");
    void face.offsetWidth; // restart the animation
    face.classList.add("rolling");
  }
  lastRollShown = key;
  $("die-name").textContent = state.die ? `roll the ${DIE_NAMES[state.die]}` : state.roll ? "rolled" : "";
  $("roll-button").disabled = !state.die;
  $("dice-card").hidden = !state.die && !roll;
}

let variantShownFor = null;

function renderExtra(state) {
  if (variantShownFor !== state.id) {
    $("variant-select").value = state.variant; // the next game defaults to the one being played
    variantShownFor = state.id;
  }
  $("scores").replaceChildren(scoreCard(state, 0), scoreCard(state, 1));
  $("phase-text").textContent = `${state.title} · phase ${state.phase}`;
  renderDie(state);
  $("finish-button").hidden = !state.can_finish;
}

const page = startTabletop({
  game: "gryb",
  makeBoard: (container, onLocation) => new GrybBoard(container, { onLocation }),
  sideColour: (state, side) => RING_COLOURS[side],
  sideName: playerName,
  // A ring goes where the tapped ring's counterpart lands; a new ring where it is placed.
  destination: (move, location) => {
    if (move.kind === "move") {
      const index = move.from.indexOf(location);
      return index >= 0 ? move.to[index] : null;
    }
    return (move.to || []).includes(location) ? location : null;
  },
  describeMove: (move) => (move.kind === "move" && move.from.length > 1 ? `moves ${move.from.length} rings together` : ""),
  renderExtra,
  // A GRYB scored in a game that goes on (25 Men's GRYB, Square Deal): chime and say where.
  onRecord: (record, current) => {
    for (const gryb of record.type === "move" ? record.scored || [] : []) {
      const who = playerName(current.state, gryb.colour);
      const text = { title: `${who} scored a GRYB`, detail: `under ${gryb.quadrangle} (level ${gryb.level})` };
      ring({ type: "win" }, text);
      toast(`${text.title} ${text.detail}`, { ms: 4000 });
    }
  },
  legend: () => [[RING_COLOURS[0], "Player 1 rings"], [RING_COLOURS[1], "Player 2 rings"]],
  newGame: (form) => ({ kind: `gryb:${form.elements.variant.value}`, options: {} }),
});

const gameUrl = (suffix) => `/api/tabletop/games/${encodeURIComponent(page.state.id)}/${suffix}`;
$("roll-button").addEventListener("click", () => page.state && page.send(gameUrl("roll"), {}));
$("face-form").addEventListener("submit", async (event) => {
  event.preventDefault();
  const value = $("face-input").value.trim();
  if (value && page.state && (await page.send(gameUrl("roll"), { value }))) $("face-input").value = "";
});
$("resign-button").addEventListener("click", () => page.state && page.play({ notation: "resign" }));
$("finish-button").addEventListener("click", () => page.state && page.play({ notation: "finish" }));

// Zoom: the bottom level's nodes are 30 mm apart, small under a finger on a phone; scroll the enlarged cloth.
$("zoom-button").addEventListener("click", () => {
  const board = $("board");
  const zoomed = board.classList.toggle("zoomed");
  $("zoom-button").setAttribute("aria-pressed", String(zoomed));
  $("zoom-button").textContent = zoomed ? "Fit" : "Zoom";
  if (!zoomed) return;
  // Show where the play is: the selected ring, else the first place to play, else the head node.
  const focus = page.selected || ((page.state && page.state.movable) || [])[0] || "0";
  const spot = board.querySelector(`[data-hit='${focus}']`);
  if (spot) spot.scrollIntoView({ block: "center", inline: "center" });
});

// The camera's reading of the bandanna (the live runtime's tokens), drawn with the same board.
let cameraTimer = null;
async function showCamera() {
  try {
    const live = await getJSON("/api/state");
    if (live.board !== "gryb") {
      toast("The camera is not watching a GRYB bandanna", { ms: 2500 });
      $("camera-toggle").checked = false;
      stopCamera();
      return;
    }
    page.viewOverride = { tokens: live.tokens || {}, movable: [], targets: [] };
    page.render();
    $("board-hint").textContent = "What the camera reads";
  } catch (error) {
    toast(error.message, { bad: true });
  }
}
function stopCamera() {
  clearInterval(cameraTimer);
  cameraTimer = null;
  page.viewOverride = null;
  page.render();
}
$("camera-toggle").addEventListener("change", (event) => {
  if (event.target.checked) {
    showCamera();
    cameraTimer = setInterval(showCamera, 1500);
  } else {
    stopCamera();
  }
});
