// The page every hand-played game shares: its state, live updates, tap-to-move, banners, move list.
// A game page calls startTabletop(config) with its board drawing and what is particular to it.
import { control, getJSON, ApiError } from "./api.js";
import { setupPage, toast } from "./ui.js";
import { ring, unlockAudio } from "./alerts.js";
import { swatch, actionButton, fillList } from "./dom.js";

const $ = (id) => document.getElementById(id);

// config: {
//   game: "tsr4d" | "timeline" | "gryb",
//   board: {render(view)} (created by the page with onLocation = the function passed to makeBoard),
//   makeBoard(container, onLocation) -> board,
//   sideColour(state, side) -> css, sideName(state, side) -> text,
//   destination(move, location) -> where the move goes as the board names it (null: no place to tap),
//   newGame(form) -> {kind, options},
//   renderExtra(state, page) (optional), describeMove(move) -> text (optional),
//   onRecord(record, page) (optional: a game's own reaction to a live event record),
//   legend(state) -> [[css, label]]
// }
export function startTabletop(config) {
  const page = new TabletopPage(config);
  page.start();
  return page;
}

export class TabletopPage {
  constructor(config) {
    this.config = config;
    this.state = null;
    this.selected = null; // location of the piece whose moves are shown
    this.options = []; // legal moves from the selected location
    this.alert = null;
    this.viewOverride = null; // a view drawn instead of the game's (the GRYB page's camera reading)
    this.board = config.makeBoard($("board"), (location) => this.tapped(location));
  }

  async start() {
    setupPage();
    this.wire();
    this.connect();
    await this.loadNewest();
  }

  // -- loading -------------------------------------------------------------------
  async loadNewest() {
    const wanted = new URLSearchParams(location.hash.slice(1)).get("game");
    try {
      if (wanted) {
        this.apply(await getJSON(`/api/tabletop/games/${encodeURIComponent(wanted)}`));
        return;
      }
      const games = (await getJSON("/api/tabletop/games")).filter((g) => g.kind.split(":")[0] === this.config.game);
      if (games.length) this.apply(await getJSON(`/api/tabletop/games/${encodeURIComponent(games[0].id)}`));
      else this.showEmpty();
    } catch (error) {
      toast(error.message, { bad: true });
      this.showEmpty();
    }
  }

  showEmpty() {
    $("turn-text").textContent = "No game yet";
    $("board-hint").textContent = "Start a new game (it needs the PIN)";
    this.board.render({ ...this.emptyView() });
    document.body.dataset.ready = "yes";
  }

  emptyView() {
    return { state: null, movable: [], targets: [], captures: [], selected: null, lastMove: null };
  }

  connect() {
    const source = new EventSource("/api/tabletop/events");
    source.onopen = () => {
      this.setLive(true);
      if (this.state) this.refresh(); // catch up on what happened while the stream was down
    };
    source.onerror = () => this.setLive(false);
    source.addEventListener("state", (event) => this.stateRecord(JSON.parse(event.data)));
    source.onmessage = (event) => this.record(JSON.parse(event.data));
  }

  setLive(on) {
    $("live-dot").className = `dot ${on ? "ok" : "warn"}`;
    $("live-text").textContent = on ? "live" : "reconnecting…";
    document.body.dataset.live = on ? "yes" : "no";
  }

  async refresh() {
    if (!this.state) return;
    try {
      this.apply(await getJSON(`/api/tabletop/games/${encodeURIComponent(this.state.id)}`));
    } catch (error) {
      toast(error.message, { bad: true });
    }
  }

  // A state pushed by the server: ours, or a newer game of this page's kind started elsewhere.
  stateRecord(next) {
    if (!next || next.game !== this.config.game) return;
    if (!this.state || next.id === this.state.id || next.created > this.state.created) this.apply(next);
  }

  record(record) {
    if (!record || !this.state || record.game_id !== this.state.id) return;
    if (record.type === "illegal") {
      this.alert = record;
      ring(record, { title: "Illegal move", detail: (record.reasons || []).join("; ") });
    } else if (record.type === "win" || record.type === "draw") {
      ring(record, { title: record.type === "win" ? `${record.winner} wins` : "Draw", detail: record.reason || "" });
    } else if (record.type === "move" || record.type === "undo" || record.type === "game_started") {
      this.alert = null;
    }
    if (this.config.onRecord) this.config.onRecord(record, this);
    this.renderAlert();
  }

  apply(state) {
    // An answer overtaken by a newer state of the same game (a refresh sent before a move,
    // answered after it) would show the old position again and drop the player's selection.
    if (this.state && state.id === this.state.id && state.updated < this.state.updated) return;
    const changedGame = !this.state || this.state.id !== state.id;
    const changedPosition = changedGame || (this.state.moves || []).length !== (state.moves || []).length
      || this.state.updated !== state.updated;
    this.state = state;
    if (changedPosition) this.clearSelection();
    if (changedGame) history.replaceState(null, "", `#game=${encodeURIComponent(state.id)}`);
    this.render();
  }

  // -- tapping -------------------------------------------------------------------------
  clearSelection() {
    this.selected = null;
    this.options = [];
    $("choice-card").hidden = true;
  }

  destinations() {
    const found = new Map();
    for (const move of this.options) {
      const where = this.config.destination(move, this.selected);
      if (where === null || where === undefined) continue;
      if (!found.has(where)) found.set(where, []);
      found.get(where).push(move);
    }
    return found;
  }

  async tapped(location) {
    unlockAudio();
    const state = this.state;
    if (!state) { toast("Start a new game first"); return; }
    if (state.result !== "ongoing") { toast(state.reason || "The game is over"); return; }
    if (this.selected !== null) {
      if (location === this.selected) { this.clearSelection(); this.render(); return; }
      const moves = this.destinations().get(location);
      if (moves) { await this.choose(moves, `To ${location}`); return; }
      if (!(state.movable || []).includes(location)) {
        // Not a highlighted destination: ask the referee anyway, so the player learns the rule.
        await this.play({ from: this.selected, to: location });
        return;
      }
    }
    if (!(state.movable || []).includes(location)) {
      toast(state.die ? "Roll the die first" : `Nothing to move on ${location}`, { ms: 1800 });
      return;
    }
    await this.select(location);
  }

  async select(location) {
    try {
      const answer = await getJSON(`/api/tabletop/games/${encodeURIComponent(this.state.id)}/legal?from=${encodeURIComponent(location)}`);
      this.selected = location;
      this.options = answer.moves;
    } catch (error) {
      toast(error.message, { bad: true });
      return;
    }
    const placed = this.options.filter((m) => this.config.destination(m, location) === location);
    const untargeted = this.options.filter((m) => this.config.destination(m, location) === null);
    if (placed.length === 1 && this.options.length === 1) { await this.play({ notation: placed[0].notation }); return; }
    // Moves with no place to tap (a capture of a piece in a 'suicide' position, staying in Time-warp) are buttons.
    if (untargeted.length) this.showChoices(untargeted, `At ${location}`);
    this.render();
  }

  // One move: play it; several to one place (captures, blocks): let the player pick.
  async choose(moves, title) {
    if (moves.length === 1) { await this.play({ notation: moves[0].notation }); return; }
    this.showChoices(moves, title);
    this.render();
  }

  showChoices(moves, title) {
    $("choice-title").textContent = title;
    $("choice-list").replaceChildren(...moves.map((move) => {
      const button = actionButton(() => this.play({ notation: move.notation }), move.notation);
      button.dataset.notation = move.notation;
      const why = this.config.describeMove ? this.config.describeMove(move) : "";
      if (why) {
        const span = document.createElement("span");
        span.className = "why";
        span.textContent = why;
        button.append(span);
      }
      return button;
    }));
    $("choice-card").hidden = false;
  }

  async play(body) {
    return this.send(`/api/tabletop/games/${encodeURIComponent(this.state.id)}/move`, body);
  }

  // A control request; an illegal move shows the referee's reason in the alert banner.
  async send(url, body, done = null) {
    try {
      const state = await control(url, body);
      this.alert = null;
      this.clearSelection();
      this.apply(state);
      if (done) toast(done);
      return true;
    } catch (error) {
      if (error instanceof ApiError && error.status === 409 && url.endsWith("/move")) {
        this.alert = { type: "illegal", reasons: [error.message], move: body.notation || `${body.from}-${body.to}` };
        this.clearSelection();
        this.render();
      } else {
        toast(error.message, { bad: true });
      }
      return false;
    }
  }

  // -- drawing ---------------------------------------------------------------------------
  render() {
    const state = this.state;
    if (!state) return;
    const targets = [...this.destinations().keys()];
    const captures = this.options.filter((m) => isCapture(m)).map((m) => this.config.destination(m, this.selected)).filter(Boolean);
    this.board.render(this.viewOverride || {
      state,
      movable: this.selected === null ? state.movable || [] : [],
      targets,
      captures,
      selected: this.selected,
      lastMove: state.last_move,
    });
    this.renderStatus();
    this.renderWinner();
    this.renderAlert();
    this.renderMoves();
    this.renderLegend();
    if (this.config.renderExtra) this.config.renderExtra(state, this);
    $("undo-button").disabled = !state.can_undo;
    $("board-hint").textContent = state.result !== "ongoing" ? "Game over"
      : this.selected !== null ? (targets.length ? `Tap a highlighted place for ${this.selected}` : `${this.selected}: choose below`)
        : state.die ? "Roll the die, then tap where to play" : "Tap a piece to see where it can go";
    document.body.dataset.moves = String((state.moves || []).length);
    document.body.dataset.selected = this.selected || "";
    document.body.dataset.ready = "yes";
  }

  renderStatus() {
    const s = this.state;
    const over = s.result !== "ongoing";
    $("turn-text").textContent = over ? "Game over" : this.config.sideName(s, s.to_move);
    $("turn-swatch").style.background = over ? "" : this.config.sideColour(s, s.to_move);
    const last = s.last_move ? s.last_move.notation : (s.moves || []).slice(-1)[0];
    $("last-move").textContent = last || "–";
    $("move-count").textContent = String((s.moves || []).length);
    $("game-title").textContent = s.title;
  }

  renderWinner() {
    const s = this.state;
    const banner = $("win-banner");
    if (s.result === "ongoing") { banner.hidden = true; return; }
    const winner = s.winner;
    $("win-swatch").style.background = winner ? this.config.sideColour(s, winner.side) : "";
    $("win-title").textContent = winner ? `${this.config.sideName(s, winner.side)} wins!` : "Draw";
    $("win-sub").textContent = s.reason || "";
    banner.hidden = false;
  }

  renderAlert() {
    const banner = $("alert-banner");
    if (!this.alert) { banner.hidden = true; return; }
    $("alert-title").textContent = this.alert.move ? `Illegal move: ${this.alert.move}` : "Illegal move";
    $("alert-sub").textContent = (this.alert.reasons || []).join("; ");
    banner.hidden = false;
  }

  renderMoves() {
    const list = $("move-list");
    fillList(list, (this.state.moves || []).map((text, index) => {
      const li = document.createElement("li");
      const number = document.createElement("span");
      number.className = "n";
      number.textContent = `${index + 1}.`;
      li.append(number, text);
      li.title = text;
      return li;
    }), "No moves yet.", "empty");
    list.scrollTop = list.scrollHeight;
  }

  renderLegend() {
    const items = (this.config.legend ? this.config.legend(this.state) : []).map(([css, label]) => {
      const span = document.createElement("span");
      span.append(swatch(css, "i"), label);
      return span;
    });
    const hint = document.createElement("span");
    hint.textContent = "◌ legal destination";
    $("legend").replaceChildren(...items, hint);
  }

  // -- controls ---------------------------------------------------------------------------
  wire() {
    $("alert-dismiss").addEventListener("click", () => { this.alert = null; this.renderAlert(); });
    $("choice-cancel").addEventListener("click", () => { this.clearSelection(); this.render(); });
    $("undo-button").addEventListener("click", () => this.state
      && this.send(`/api/tabletop/games/${encodeURIComponent(this.state.id)}/undo`, {}, "Last move taken back"));
    $("type-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const text = $("type-input").value.trim();
      if (!text || !this.state) return;
      if (await this.play({ notation: text })) $("type-input").value = "";
    });
    $("new-game-form").addEventListener("submit", async (event) => {
      event.preventDefault();
      const body = this.config.newGame($("new-game-form"));
      try {
        const state = await control("/api/tabletop/games", body);
        this.alert = null;
        this.state = null;
        this.apply(state);
        toast("New game started");
      } catch (error) {
        toast(error.message, { bad: true });
      }
    });
    document.addEventListener("pointerdown", unlockAudio, { once: true });
  }
}

function isCapture(move) {
  return Boolean(move.capture || move.captures);
}
