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

// "Ann" when each colour has a player name, else "Colour 1".
export function colourName(state, colour) {
  if (colour === null || colour === undefined) return "–";
  const names = state && Array.isArray(state.names) ? state.names : [];
  if (names.length === colourCount(state) && names[colour]) return names[colour];
  return `Colour ${colour + 1}`;
}
