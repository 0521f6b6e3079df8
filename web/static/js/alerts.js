// Alerts while the page is open: a sound (WebAudio, no file to fetch), vibration, and a
// system notification where the browser allows it. Also the words for each event record.
import { colourName } from "./colours.js";

let audio = null;
let soundOn = localStorage.getItem("boardcam.sound") !== "off";

export function isSoundOn() {
  return soundOn;
}

export function setSoundOn(on) {
  soundOn = on;
  localStorage.setItem("boardcam.sound", on ? "on" : "off");
}

// Browsers only allow audio after a user gesture: call this from one.
export function unlockAudio() {
  if (!audio && window.AudioContext) audio = new AudioContext();
  if (audio && audio.state === "suspended") audio.resume();
}

function beep(frequencies, duration = 0.16) {
  if (!soundOn || !audio || audio.state !== "running") return;
  let start = audio.currentTime;
  for (const frequency of frequencies) {
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = frequency;
    osc.type = "sine";
    gain.gain.setValueAtTime(0.0001, start);
    gain.gain.exponentialRampToValueAtTime(0.25, start + 0.02);
    gain.gain.exponentialRampToValueAtTime(0.0001, start + duration);
    osc.connect(gain).connect(audio.destination);
    osc.start(start);
    osc.stop(start + duration + 0.02);
    start += duration + 0.04;
  }
}

const SOUNDS = { win: [660, 880, 1320], illegal: [440, 330], default: [520, 520] };
const VIBRATIONS = { win: [120, 80, 120, 80, 300], illegal: [300, 100, 300], default: [200] };

// System notifications exist only on secure pages (HTTPS or localhost); on a plain LAN
// address the banner, sound and vibration still work.
export function notificationsPossible() {
  return window.isSecureContext && "Notification" in window;
}

export async function enableNotifications() {
  if (!notificationsPossible()) return "unsupported";
  if (Notification.permission === "default") return Notification.requestPermission();
  return Notification.permission;
}

// Ring the phone for one alert record.
export function ring(record, text) {
  const kind = SOUNDS[record.type] ? record.type : "default";
  beep(SOUNDS[kind]);
  if (navigator.vibrate) navigator.vibrate(VIBRATIONS[kind]);
  if ("Notification" in window && Notification.permission === "granted" && document.visibilityState !== "visible") {
    try {
      new Notification(`boardcam: ${text.title}`, { body: text.detail, tag: `boardcam-${record.type}`, renotify: true });
    } catch {
      // Android Chrome only notifies through a service worker; the banner and sound still work.
    }
  }
}

const plural = (n, word) => `${n} ${word}${n === 1 ? "" : "s"}`;

// What a GRYB move did to the rings it names (move records of the bandanna carry "nodes").
const GRYB_VERBS = { place: "placed a ring on", move: "moved a ring to", remove: "took off" };

// {title, detail} in words players understand, for any event record.
export function describe(record, state) {
  const who = (colour) => colourName(state, colour);
  const points = (list) => (list || []).join(", ");
  switch (record.type) {
    case "move":
      if (record.kind === "roll") return { title: `${who(record.color)} rolled ${record.roll}`, detail: "" };
      if (record.nodes) return { title: `${who(record.color)} ${GRYB_VERBS[record.kind] || "played"} ${points(record.nodes)}`, detail: "" };
      if (record.kind === "choose") return { title: `Colour chosen: ${who(record.color)} plays colour ${record.color + 1}`, detail: "three-move equalization" };
      if (record.kind === "swap") return { title: `${who(record.color)} swapped ${record.point}`, detail: "first-move swap" };
      return { title: `${who(record.color)} played ${record.point}`, detail: "" };
    case "gryb": return {
      title: `${who(record.color)} scored a GRYB`,
      detail: `${(record.grybs || []).map((g) => points(g.nodes)).join(" · ")} — score ${(record.scores || []).join(" : ")}`,
    };
    case "win": if (record.grybs) return { title: `${who(record.color)} wins!`, detail: record.reason || "" };
      return { title: `${who(record.color)} wins!`, detail: `${plural((record.vectors || []).length, "vector")}: ${(record.vectors || []).map(points).join(" · ")}` };
    case "draw": return { title: "Draw", detail: "no tokens left and no vector" };
    case "illegal": return { title: "Illegal change", detail: [(record.reasons || []).join("; "), points(record.points)].filter(Boolean).join(" — ") };
    case "restored": return { title: "Board put back", detail: "the board matches the game again" };
    case "accepted": return {
      title: record.reason ? "Token read on another point" : "Change accepted",
      detail: (record.moved || []).map(([from, to]) => `${from} → ${to}`).join(", "),
    };
    case "corrected": return { title: `Corrected ${record.point || ""}`, detail: "" };
    case "undo": return { title: "Move taken back", detail: record.point || "" };
    case "confirm_hidden":
      if (record.in_line) return { title: "Which point?", detail: `${who(record.color)} played on ${(record.candidates || []).join(" or ")}: in line with the camera, it cannot tell which` };
      return { title: "Confirm a hidden move", detail: `${who(record.color)} played where the camera cannot see: one of ${points(record.candidates && record.candidates.length ? record.candidates : record.points)}` };
    case "camera_moved": return { title: "The camera moved", detail: "recalibrate if the board is misread" };
    case "camera_status": return { title: `Camera ${record.status || ""}`, detail: record.description || record.message || "" };
    case "game_started": return { title: "New game", detail: "" };
    default: return { title: record.type || "event", detail: "" };
  }
}
