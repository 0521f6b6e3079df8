// Token colours and player names as the dashboard shows them.

// Shown until the calibration has learned the real token colours.
export const DEFAULT_COLOURS = ["#ef4444", "#3b82f6", "#facc15", "#22c55e"];

function rgbToCss(rgb) {
  return Array.isArray(rgb) && rgb.length === 3 ? `rgb(${rgb.map((v) => Math.round(v)).join(",")})` : null;
}

// CSS colours per colour index: the learned palette where there is one.
export function paletteOf(state) {
  const learned = (state && (state.palette || (state.calibration && state.calibration.palette))) || [];
  return DEFAULT_COLOURS.map((fallback, index) => rgbToCss(learned[index]) || fallback);
}

// How many token colours the game uses: three players play three colours, teams and pairs two.
export function colourCount(state) {
  const players = state && typeof state.players === "number" ? state.players : 2;
  return players === 3 ? 3 : 2;
}

// "Ann" (or "Ann & Cy" for a team) when the players are named, else "Colour 1". Seats play the
// colours of state.player_colors (a 3MEQ choice can exchange them); without it seat i plays i.
export function colourName(state, colour) {
  if (colour === null || colour === undefined) return "–";
  const names = state && Array.isArray(state.names) ? state.names : [];
  const seats = state && Array.isArray(state.player_colors) && state.player_colors.length === names.length
    ? state.player_colors : null;
  if (seats) {
    const named = names.filter((name, seat) => seats[seat] === colour && name);
    if (named.length) return named.join(" & ");
  } else if (names.length === colourCount(state) && names[colour]) {
    return names[colour];
  }
  return `Colour ${colour + 1}`;
}
