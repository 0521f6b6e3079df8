// Token colours and player names as the dashboard shows them.

// Shown until the calibration has learned the real token colours.
export const DEFAULT_COLOURS = ["#ef4444", "#3b82f6", "#facc15", "#22c55e"];

function rgbToCss(rgb) {
  return Array.isArray(rgb) && rgb.length === 3 ? `rgb(${rgb.map((v) => Math.round(v)).join(",")})` : null;
}

// CSS colours per colour index: the calibration's learned palette where there is one.
export function paletteOf(state) {
  const learned = state && state.calibration && Array.isArray(state.calibration.palette) ? state.calibration.palette : [];
  return DEFAULT_COLOURS.map((fallback, index) => rgbToCss(learned[index]) || fallback);
}

// "Ann" when the players have names, else "Colour 1".
export function colourName(state, colour) {
  if (colour === null || colour === undefined) return "–";
  const players = state && Array.isArray(state.players) ? state.players : [];
  const entry = players.find((p) => p && typeof p === "object" && p.color === colour) ?? players[colour];
  const name = typeof entry === "string" ? entry : entry && entry.name;
  return name || `Colour ${colour + 1}`;
}
