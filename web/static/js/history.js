// Past games: the list, a game's moves, a step-by-step replay on the board, export links.
import { getJSON } from "./api.js";
import { setupPage, toast } from "./ui.js";
import { createBoard, preferredLayout } from "./boards/index.js";
import { paletteOf, colourName } from "./colours.js";

const $ = (id) => document.getElementById(id);
let board = null;
let game = null;
let step = 0;
let palette = paletteOf(null);

function placedMoves(moves) {
  return moves.filter((m) => m && typeof m.point === "string");
}

function showStep(next) {
  const moves = placedMoves(game.moves || []);
  step = Math.max(0, Math.min(next, moves.length));
  const tokens = {};
  for (const move of moves.slice(0, step)) tokens[move.point] = move.color;
  const last = step ? moves[step - 1] : null;
  const finished = step === moves.length && game.winner !== null && game.winner !== undefined;
  const winner = finished && typeof game.winner === "object" ? game.winner : null;
  board.render({
    tokens, palette, lastMove: last ? last.point : null,
    vectors: winner ? winner.vectors || [] : [], vectorColour: winner ? winner.color : null,
  });
  $("replay-step").textContent = `${step} / ${moves.length}`;
  $("step-slider").max = String(moves.length);
  $("step-slider").value = String(step);
  document.querySelectorAll("#moves-list li").forEach((li, index) => li.classList.toggle("current", index === step - 1));
  document.body.dataset.step = String(step);
}

function resultText(entry) {
  if (entry.winner === null || entry.winner === undefined) return entry.status === "draw" ? "Draw" : entry.status || "–";
  const colour = typeof entry.winner === "object" ? entry.winner.color : entry.winner;
  return `${colourName(entry, colour)} won`;
}

async function openGame(id, row) {
  try {
    game = await getJSON(`/api/games/${encodeURIComponent(id)}`);
  } catch (error) {
    toast(error.message, { bad: true });
    return;
  }
  document.querySelectorAll("#games-body tr").forEach((tr) => tr.classList.toggle("selected", tr === row));
  $("moves-card").hidden = false;
  $("replay-card").hidden = false;
  $("replay-title").textContent = `Replay · ${new Date(game.started).toLocaleString()}`;
  if (!board) board = createBoard(game.board || "timevectors", $("board"), { layout: preferredLayout() });
  const list = $("moves-list");
  list.replaceChildren(...(game.moves || []).map((move, index) => {
    const li = document.createElement("li");
    li.textContent = move.notation || move.point || "?";
    li.title = colourName(game, move.color);
    li.addEventListener("click", () => showStep(index + 1));
    return li;
  }));
  const links = $("export-links");
  links.replaceChildren(...[["pbm", "Move list"], ["json", "JSON"], ["ascii", "ASCII board"]].map(([fmt, label]) => {
    const a = document.createElement("a");
    a.href = `/api/games/${encodeURIComponent(id)}/export?format=${fmt}&download=1`;
    a.textContent = label;
    a.className = "button ghost small";
    return a;
  }));
  showStep(placedMoves(game.moves || []).length);
}

async function loadGames() {
  let games = [];
  try {
    games = await getJSON("/api/games");
    palette = paletteOf(await getJSON("/api/state"));
  } catch (error) {
    toast(error.message, { bad: true });
  }
  const body = $("games-body");
  body.replaceChildren();
  if (!games.length) {
    body.innerHTML = '<tr><td colspan="4" class="muted">No games yet.</td></tr>';
    return;
  }
  for (const entry of games) {
    const tr = document.createElement("tr");
    tr.dataset.game = entry.id;
    const started = new Date(entry.started);
    const cells = [isNaN(started) ? entry.started : started.toLocaleString(), String(entry.moves), resultText(entry)];
    for (const text of cells) {
      const td = document.createElement("td");
      td.textContent = text;
      tr.append(td);
    }
    const td = document.createElement("td");
    const button = document.createElement("button");
    button.type = "button";
    button.className = "small";
    button.textContent = "Replay";
    button.addEventListener("click", () => openGame(entry.id, tr));
    td.append(button);
    tr.append(td);
    body.append(tr);
  }
}

setupPage();
$("step-first").addEventListener("click", () => showStep(0));
$("step-back").addEventListener("click", () => showStep(step - 1));
$("step-forward").addEventListener("click", () => showStep(step + 1));
$("step-last").addEventListener("click", () => showStep(Infinity));
$("step-slider").addEventListener("input", (event) => showStep(Number(event.target.value)));
document.addEventListener("keydown", (event) => {
  if (!game) return;
  if (event.key === "ArrowLeft") showStep(step - 1);
  if (event.key === "ArrowRight") showStep(step + 1);
});
loadGames();
