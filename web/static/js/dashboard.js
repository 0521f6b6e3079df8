// The live dashboard: state over SSE, the board, alerts and control.
import { control } from "./api.js";
import { setupPage, toast, formatTime } from "./ui.js";
import { createBoard, preferredLayout } from "./boards/index.js";
import { RING_COLOURS } from "./boards/gryb.js";
import { paletteOf, colourName, colourCount } from "./colours.js";
import { describe, ring, unlockAudio, enableNotifications, notificationsPossible, isSoundOn, setSoundOn } from "./alerts.js";
import { swatch, actionButton, fillList } from "./dom.js";

const $ = (id) => document.getElementById(id);
const ALERT_TYPES = new Set(JSON.parse(document.querySelector(".layout").dataset.alertTypes));
// Records after which a shown illegal/hidden alert no longer applies.
const CLEARING_TYPES = new Set(["restored", "accepted", "corrected", "undo", "game_started", "move"]);
const MAX_ALERTS = 50;

let state = null;
let board = null;
let boardKey = null;
let correcting = false;
let selected = null;
let liveAlert = null;
let hiddenCandidates = [];
let questionInLine = false; // the question is which of two points in line, not a hidden one
let dismissedKey = null;
let cameraProblem = null;
let imageBroken = false;
let liveAlerts = [];
let showThreats = localStorage.getItem("boardcam.threats") === "on";

const lastMoveName = (s) => (s.last_move && typeof s.last_move === "object" ? s.last_move.point : s.last_move) || null;
const alertKey = (r) => `${r.type}|${r.frame}|${(r.points || []).join()}|${(r.candidates || []).join()}`;
const candidatesOf = (r) => (r.candidates && r.candidates.length ? r.candidates : r.points) || [];

function askAbout(record) {
  const asking = record && record.type === "confirm_hidden";
  hiddenCandidates = asking ? candidatesOf(record) : [];
  questionInLine = asking && record.in_line === true;
}

// Token colours: the learned palette, else the board's own defaults (the bandanna's rings).
function boardPalette(s) {
  const palette = paletteOf(s);
  const learned = s && (s.palette || (s.calibration && s.calibration.palette));
  return s && s.board === "gryb" && !learned ? [...RING_COLOURS, ...palette.slice(2)] : palette;
}

const isGryb = (s) => Boolean(s && s.board === "gryb");

function ensureBoard(kind) {
  const layout = preferredLayout();
  if (board && boardKey === `${kind}/${layout}`) return;
  board = createBoard(kind, $("board"), { onPointClick: pointClicked, layout });
  boardKey = `${kind}/${layout}`;
}

// The seat that acts next as players call it: its name, else "Player 2" / "Team 1, player B".
function seatName(s, act) {
  if (!act) return "";
  if (act.name) return act.name;
  if (act.team !== null && act.team !== undefined) {
    return `Team ${act.team + 1}, player ${"ABC"[Math.floor(act.player / 2)] || act.player + 1}`;
  }
  return `Player ${act.player + 1}`;
}

// What the players must do now, from the runtime's phase (older states have none: the turn),
// as a short headline and a line saying who acts.
function turnText(s) {
  const over = Boolean(s.winner) || s.result === "draw" || s.phase === "over";
  if (over) return ["Game over", ""];
  const who = seatName(s, s.to_act);
  if (s.phase === "3meq-placing") return ["3MEQ opening", `${who || "First player"}: two tokens of one colour, one of the other`];
  if (s.phase === "3meq-choice") return ["Colour choice", `${who || "Second player"} chooses a colour`];
  if (s.turn === null || s.turn === undefined) return ["–", ""];
  const colour = colourName(s, s.turn);
  if (isGryb(s)) return [colour, s.phase === "roll" ? "rolls the die" : "moves"];
  if (s.phase === "swap-available") return [colour, `${who || "Second player"} may swap`];
  return [colour, who && who !== colour ? who : ""];
}

function renderStatus(s) {
  const palette = boardPalette(s);
  const over = Boolean(s.winner) || s.result === "draw";
  const [headline, who] = turnText(s);
  $("turn-text").textContent = headline;
  $("turn-who").textContent = who;
  $("turn-swatch").style.background = !over && s.turn !== null && s.turn !== undefined ? palette[s.turn] : "";
  $("last-move").textContent = lastMoveName(s) || "–";
  $("move-count").textContent = String((s.moves || []).length);
  const camera = s.camera || {};
  const status = camera.status || "unknown";
  $("camera-dot").className = `dot ${["ok", "demo"].includes(status) ? "ok" : status === "reconnecting" ? "warn" : "bad"}`;
  const fps = typeof camera.fps === "number" ? ` · ${camera.fps.toFixed(1)} fps` : "";
  $("camera-text").textContent = `${status}${fps}`;
  $("camera-text").title = camera.description || "";
  // Say on the camera view itself when the camera is gone (the runtime keeps reconnecting).
  cameraProblem = ["reconnecting", "failed", "ended"].includes(status)
    ? `Camera ${status}${camera.message ? `: ${camera.message}` : ""}` : null;
  showCameraOverlay();
  renderHandNote(s);
}

// No hand stays over the board this long: past it, something else keeps the board unread.
const COVERED_TOO_LONG_S = 30;

function renderHandNote(s) {
  const note = $("hand-note");
  const seconds = Number(s.hand_seconds || 0);
  const tooLong = seconds >= COVERED_TOO_LONG_S;
  note.hidden = !s.hand;
  note.classList.toggle("warn", tooLong);
  note.textContent = tooLong
    ? `Part of the board has looked covered for ${Math.round(seconds)} s, so no move is read. ` +
      "If nothing is over it, the light or the scene has changed since calibration: recalibrate."
    : "Hand over the board: moves are read once it has gone.";
}

function showCameraOverlay() {
  const overlay = $("camera-missing");
  overlay.textContent = cameraProblem || "No camera image";
  overlay.hidden = !cameraProblem && !imageBroken;
}

function renderWinner(s) {
  const banner = $("win-banner");
  if (s.result === "draw" && !s.winner) {
    $("win-swatch").style.background = "";
    $("win-title").textContent = "Draw";
    $("win-sub").textContent = "No tokens left and no vector.";
    banner.hidden = false;
    return;
  }
  if (!s.winner) { banner.hidden = true; return; }
  const palette = boardPalette(s);
  const vectors = s.winner.vectors || [];
  const dims = s.winner.dimensions || [];
  $("win-swatch").style.background = palette[s.winner.color];
  $("win-title").textContent = `${colourName(s, s.winner.color)} wins!`;
  $("win-sub").textContent = s.winner.grybs ? s.winner.reason || "" : vectors
    .map((v, i) => `Vector of the ${dims[i] || "?"} dimension${(dims[i] || "").includes(" ") ? "s" : ""}: ${v.join(" ")}`)
    .join(" · ");
  banner.hidden = false;
}

function renderAlertBanner() {
  const banner = $("alert-banner");
  if (!liveAlert) { banner.hidden = true; return; }
  const text = describe(liveAlert, state);
  $("alert-title").textContent = text.title;
  $("alert-sub").textContent = text.detail;
  banner.hidden = false;
}

function renderAlertList(s) {
  const seen = new Set();
  const records = [...(s.alerts || []), ...liveAlerts].filter((r) => {
    const key = alertKey(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
  records.sort((a, b) => (b.time || 0) - (a.time || 0));
  fillList($("alert-list"), records.slice(0, MAX_ALERTS).map((record) => alertItem(record, s)), "No alerts yet.", "muted");
}

// One alert of the list: its time, and what happened in words.
function alertItem(record, s) {
  const text = describe(record, s);
  const li = document.createElement("li");
  li.dataset.type = record.type;
  const time = document.createElement("span");
  time.className = "time";
  time.textContent = formatTime(record.time);
  const body = document.createElement("div");
  const kind = document.createElement("div");
  kind.className = `kind ${record.type}`;
  kind.textContent = text.title;
  body.append(kind);
  if (text.detail) {
    const detail = document.createElement("div");
    detail.className = "small muted";
    detail.textContent = text.detail;
    body.append(detail);
  }
  li.append(time, body);
  return li;
}

function renderMismatch(s) {
  const mismatch = s.mismatch || [];
  const card = $("mismatch-card");
  card.hidden = !mismatch.length && !hiddenCandidates.length;
  $("mismatch-text").textContent = mismatch.length
    ? `Differs at ${mismatch.join(", ")}.`
    : "";
  $("hidden-confirm").hidden = !hiddenCandidates.length;
  $("hidden-question").textContent = questionInLine
    ? "The token is on one of two points in line with the camera, which cannot tell them apart. Which point?"
    : "A token went where the camera cannot see. Which point?";
  const holder = $("hidden-candidates");
  holder.replaceChildren(...hiddenCandidates.map((point) => {
    const button = actionButton(() => act("/api/control/confirm", { point }, `Move to ${point} confirmed`), point);
    button.className = "mono";
    return button;
  }));
}

function renderCorrection(s) {
  $("correct-card").hidden = !correcting;
  $("correct-point").textContent = selected || "tap a point";
  const holder = $("correct-choices");
  const palette = boardPalette(s);
  const colours = colourCount(s);
  const choices = [...Array(Math.min(colours, palette.length)).keys()].map((colour) => [colour, colourName(s, colour), palette[colour]]);
  choices.push([null, "Empty", ""]);
  holder.replaceChildren(...choices.map(([colour, label, css]) => {
    const correct = () => act("/api/control/correct", { point: selected, color: colour }, `${selected} corrected`);
    const button = actionButton(correct, swatch(css), label);
    button.disabled = !selected;
    return button;
  }));
}

// The 3MEQ colour choice (buttons in the token colours, PIN-protected) and the swap hint.
function renderOpening(s) {
  const choosing = s.phase === "3meq-choice";
  $("choose-card").hidden = !choosing;
  if (choosing) {
    const palette = paletteOf(s);
    const counts = [0, 1].map((c) => Object.values(s.tokens || {}).filter((v) => v === c).length);
    $("choose-text").textContent = `${seatName(s, s.to_act) || "Second player"}: play the pair (two tokens, `
      + "the other player moves next) or the single token (you move next)?";
    $("choose-buttons").replaceChildren(...[0, 1].map((colour) => {
      const kind = counts[colour] === 2 ? "pair" : counts[colour] === 1 ? "single" : `${counts[colour]} tokens`;
      const choose = () => act("/api/control/choose", { color: colour }, `Colour ${colour + 1} chosen`);
      const button = actionButton(choose, swatch(palette[colour]), `Colour ${colour + 1} (${kind})`);
      button.dataset.colour = String(colour);
      return button;
    }));
  }
  const swapping = s.phase === "swap-available";
  $("swap-card").hidden = !swapping;
  if (swapping) {
    const first = Object.keys(s.tokens || {})[0] || "the first token";
    const who = seatName(s, s.to_act) || "The second player";
    $("swap-text").textContent = `${who} may swap: replace the token on ${first} with a colour ${s.turn + 1} `
      + "token (the first player then moves again), or place a token as usual.";
  }
}

// One move of the list in words: "A3Q", "swap A3Q", "colour 2 chosen".
function moveItem(s, notation, palette) {
  const li = document.createElement("li");
  const choose = /^choose (\d+)$/i.exec(notation);
  const place = /^(swap )?(\w+):(\d+)$/i.exec(notation);
  const colour = choose ? Number(choose[1]) : place ? Number(place[3]) : null;
  if (colour !== null) li.append(swatch(palette[colour] || ""));
  li.dataset.notation = notation;
  li.append(choose ? `${colourName(s, colour)} takes colour ${colour + 1}`
    : place ? `${place[1] ? "swap " : ""}${place[2]}` : notation);
  li.className = choose || (place && place[1]) ? "mono opening-move" : "mono";
  return li;
}

function renderMoves(s) {
  const list = $("move-list");
  const palette = boardPalette(s);
  fillList(list, (s.moves || []).map((notation) => moveItem(s, notation, palette)), "No moves yet.", "muted");
  list.scrollTop = list.scrollHeight;
}

function renderLegend(s) {
  const palette = boardPalette(s);
  const colours = colourCount(s);
  const items = [...Array(Math.min(colours, palette.length)).keys()]
    .map((c) => `<span><i class="swatch" style="background:${palette[c]}"></i>${escapeHtml(colourName(s, c))}</span>`);
  items.push('<span>◯ last move</span>', '<span style="color:var(--danger)">▢ differs</span>');
  if ((s.hidden || []).length) items.push('<span>⬚ camera cannot see</span>');
  if (showThreats) items.push("<span>◌ threat</span>");
  $("legend").innerHTML = items.join("");
}

// The GRYB game on the bandanna: its name, the score per colour and the die (roll buttons).
function renderGryb(s) {
  const card = $("gryb-card");
  card.hidden = !isGryb(s) || !s.gryb;
  if (card.hidden) return;
  const game = s.gryb;
  const palette = boardPalette(s);
  $("gryb-title").textContent = game.title || game.game || "GRYB";
  $("gryb-phase").textContent = game.outcome ? game.outcome.reason : s.phase === "roll" ? "roll due" : "";
  $("gryb-scores").replaceChildren(...(game.scores || []).map((score, colour) => {
    const item = document.createElement("span");
    item.className = "gryb-score";
    item.dataset.colour = String(colour);
    const value = document.createElement("b");
    value.textContent = String(score);
    item.append(swatch(palette[colour]), `${colourName(s, colour)}: `, value);
    return item;
  }));
  $("gryb-die").textContent = game.die || "none due";
  $("gryb-roll").textContent = game.roll || "–";
  $("roll-button").disabled = !game.die;
  $("roll-typed").disabled = !game.die;
}

function escapeHtml(text) {
  return String(text).replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

function render() {
  if (!state) return;
  ensureBoard(state.board || "timevectors");
  $("threats-toggle").closest("label").hidden = isGryb(state); // the bandanna's games have no threats
  renderStatus(state);
  renderWinner(state);
  renderAlertBanner();
  renderAlertList(state);
  renderMismatch(state);
  renderCorrection(state);
  renderOpening(state);
  renderGryb(state);
  renderMoves(state);
  renderLegend(state);
  board.render({
    tokens: state.tokens,
    palette: boardPalette(state),
    lastMove: lastMoveName(state),
    threats: state.threats,
    showThreats,
    mismatch: state.mismatch,
    hidden: state.hidden,
    vectors: state.winner ? state.winner.vectors || state.winner.grybs || [] : [],
    vectorColour: state.winner ? state.winner.color : null,
    selected: correcting ? selected : null,
  });
  document.body.dataset.moves = String((state.moves || []).length);
}

// The runtime's unresolved alert (illegal change, hidden move to confirm) is the banner's
// source of truth, so a phone that joins late sees it too; others are shown as they arrive.
function applyState(next) {
  state = next;
  const pending = state.pending && typeof state.pending === "object" ? state.pending : null;
  if (pending) {
    if (alertKey(pending) !== dismissedKey) liveAlert = pending;
    askAbout(pending);
  } else {
    if (liveAlert && ["illegal", "confirm_hidden"].includes(liveAlert.type)) liveAlert = null;
    askAbout(null);
  }
  render();
}

function handleRecord(record) {
  if (!record || typeof record !== "object") return;
  if (CLEARING_TYPES.has(record.type)) {
    if (liveAlert && liveAlert.type !== "win") liveAlert = null;
    askAbout(null);
  }
  if (ALERT_TYPES.has(record.type)) {
    liveAlerts = [...liveAlerts, record].slice(-MAX_ALERTS);
    if (record.type !== "win") liveAlert = record;
    if (record.type === "confirm_hidden") askAbout(record);
    document.body.dataset.lastAlert = record.type;
    ring(record, describe(record, state));
  }
  render(); // the runtime follows each batch of records with a fresh state event
}

function setLive(on) {
  $("live-dot").className = `dot ${on ? "ok" : "warn"}`;
  $("live-text").textContent = on ? "live" : "reconnecting…";
  document.body.dataset.live = on ? "yes" : "no";
}

// Stream states arrive in the runtime's order; a control answer's state was taken when the
// request was served, so it is older than any stream state that arrived while it travelled.
let streamStates = 0;

function connect() {
  const source = new EventSource("/events");
  source.addEventListener("state", (event) => {
    streamStates += 1;
    setLive(true);
    applyState(JSON.parse(event.data));
  });
  source.onmessage = (event) => handleRecord(JSON.parse(event.data));
  source.onopen = () => setLive(true);
  source.onerror = () => setLive(false); // EventSource reconnects by itself
}

async function act(url, body, done) {
  const streamedBefore = streamStates;
  try {
    const answer = await control(url, body);
    // The stream follows every action with its own state, so a stale answer can be dropped.
    if (answer && answer.state && streamStates === streamedBefore) applyState(answer.state);
    if (done) toast(done);
    return true;
  } catch (error) {
    toast(error.message, { bad: true });
    return false;
  }
}

function pointClicked(name) {
  if (correcting) {
    selected = name;
    render();
    return;
  }
  const colour = state && state.tokens ? state.tokens[name] : undefined;
  toast(colour === undefined ? `${name}: empty` : `${name}: ${colourName(state, colour)}`, { ms: 1500 });
}

// One name field per seat, in turn order (teams alternate: team 1 A, team 2 A, team 1 B, ...);
// the openings are for two players only.
function renderSeatFields() {
  const players = Number($("players-select").value);
  const teams = players === 4 || players === 6;
  const holder = $("names-fields");
  const typed = [...holder.querySelectorAll("input")].map((input) => input.value);
  const fields = [...Array(players).keys()].map((seat) => {
    const input = document.createElement("input");
    input.name = "player-name";
    input.maxLength = 40;
    input.value = typed[seat] || "";
    input.placeholder = teams ? `Team ${(seat % 2) + 1}, player ${"ABC"[Math.floor(seat / 2)]}`
      : `Player ${seat + 1} (colour ${seat + 1})`;
    input.setAttribute("aria-label", input.placeholder);
    return input;
  });
  holder.replaceChildren(holder.querySelector("legend"), ...fields);
  const opening = $("opening-select");
  opening.disabled = players !== 2;
  if (players !== 2) opening.value = "none";
}

function wireControls() {
  renderSeatFields();
  $("players-select").addEventListener("change", renderSeatFields);
  $("threats-toggle").checked = showThreats;
  $("threats-toggle").addEventListener("change", (event) => {
    showThreats = event.target.checked;
    localStorage.setItem("boardcam.threats", showThreats ? "on" : "off");
    render();
  });
  $("accept-button").addEventListener("click", () => act("/api/control/accept", {}, "Board accepted"));
  $("correct-button").addEventListener("click", () => { correcting = true; selected = null; render(); });
  $("correct-cancel").addEventListener("click", () => { correcting = false; selected = null; render(); });
  $("undo-button").addEventListener("click", () => act("/api/control/undo", {}, "Last move taken back"));
  $("roll-button").addEventListener("click", () => act("/api/control/roll", {}, "Die rolled"));
  $("roll-typed").addEventListener("click", async () => {
    const face = $("roll-face").value.trim();
    if (!face) { toast("Type what the die showed (a colour letter or a node)", { bad: true }); return; }
    if (await act("/api/control/roll", { face }, `Roll ${face.toUpperCase()} recorded`)) $("roll-face").value = "";
  });
  $("alert-dismiss").addEventListener("click", () => {
    if (liveAlert) dismissedKey = alertKey(liveAlert);
    liveAlert = null;
    render();
  });
  $("new-game-form").addEventListener("submit", async (event) => {
    event.preventDefault();
    const names = [...document.querySelectorAll("#names-fields input")].map((input) => input.value.trim());
    const players = Number($("players-select").value);
    const body = { players, opening: players === 2 ? $("opening-select").value : "none" };
    if (names.some(Boolean)) {
      if (!names.every(Boolean)) { toast("Name every player, or none", { bad: true }); return; }
      body.names = names;
    }
    if (await act("/api/game/new", body, "New game started")) { liveAlert = null; liveAlerts = []; render(); }
  });
  const sound = $("sound-toggle");
  const showSound = () => { sound.textContent = isSoundOn() ? "Sound on" : "Sound off"; sound.setAttribute("aria-pressed", String(isSoundOn())); };
  showSound();
  sound.addEventListener("click", () => { setSoundOn(!isSoundOn()); unlockAudio(); showSound(); });
  const notify = $("notify-button");
  notify.hidden = !notificationsPossible();
  notify.addEventListener("click", async () => {
    unlockAudio();
    const permission = await enableNotifications();
    toast(permission === "granted" ? "Notifications on" : "Notifications not allowed (the page still rings)");
  });
  // Audio may only start after a gesture: the first tap anywhere enables the alert sound.
  document.addEventListener("pointerdown", unlockAudio, { once: true });
  const img = $("camera-view");
  img.addEventListener("error", () => {
    imageBroken = true;
    showCameraOverlay();
    setTimeout(() => { img.src = `/stream.mjpg?retry=${Date.now()}`; }, 3000);
  });
  img.addEventListener("load", () => { imageBroken = false; showCameraOverlay(); });
}

setupPage();
wireControls();
connect();
window.matchMedia("(min-width: 900px)").addEventListener("change", render);
