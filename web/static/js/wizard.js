// Calibration wizard: capture, click the 4 corners of each tier (magnifier, drag to adjust),
// see the projected grid at once, sample token colours, save.
import { control, postJSON } from "./api.js";
import { setupPage, toast } from "./ui.js";

const $ = (id) => document.getElementById(id);
const SVG_NS = "http://www.w3.org/2000/svg";
const TIERS = ["P", "Q", "R", "S"];
const TIER_WORDS = { P: "tier P (bottom)", Q: "tier Q (second from the bottom)", R: "tier R (third from the bottom)", S: "tier S (top)" };
const CORNERS = ["NW", "NE", "SE", "SW"];
const CORNER_WORDS = { NW: "north-west", NE: "north-east", SE: "south-east", SW: "south-west" };
const HINT_DOT = { NW: [8, 8], NE: [52, 8], SE: [52, 52], SW: [8, 52] };
const ZOOM = 4;

const wizard = {
  capture: null, // {capture, width, height}
  clicks: {},
  history: [], // [tier, corner] in click order, for "undo last corner"
  preview: null,
  palette: [],
  slot: 0,
  step: "capture",
};

function el(name, attrs, parent) {
  const node = document.createElementNS(SVG_NS, name);
  for (const [key, value] of Object.entries(attrs)) node.setAttribute(key, value);
  parent.appendChild(node);
  return node;
}

function nextLandmark() {
  for (const tier of TIERS) for (const corner of CORNERS) if (!(wizard.clicks[tier] || {})[corner]) return [tier, corner];
  return null;
}

function setStep(step) {
  wizard.step = step;
  const order = ["capture", "landmarks", "colours", "save"];
  for (const li of $("steps").children) {
    const index = order.indexOf(li.dataset.step);
    li.toggleAttribute("aria-current", li.dataset.step === step);
    if (li.dataset.step === step) li.setAttribute("aria-current", "step");
    li.classList.toggle("done", index < order.indexOf(step));
  }
  $("colour-card").hidden = !["colours", "save"].includes(step);
  $("save-card").hidden = step !== "save";
  document.body.dataset.step = step;
  instruct();
}

function instruct() {
  const title = $("instruction-title");
  const text = $("instruction-text");
  const hint = $("corner-hint");
  hint.hidden = wizard.step !== "landmarks";
  if (wizard.step === "capture") {
    title.textContent = "Capture a frame";
    text.textContent = "Best with the board empty (the frame becomes the reference for noticing a moved camera). Nothing may hide a corner of the printed grids.";
  } else if (wizard.step === "landmarks" && !nextLandmark()) {
    hint.hidden = true;
    title.textContent = "All 16 corners set";
    text.textContent = wizard.preview && wizard.preview.problem
      ? "The corners do not fit the board: drag the wrong one (see below), or undo and click again."
      : "Fitting the camera…";
  } else if (wizard.step === "landmarks") {
    const [tier, corner] = nextLandmark();
    title.textContent = `Tap the ${CORNER_WORDS[corner]} corner of ${TIER_WORDS[tier]}`;
    text.textContent = "The outer corner of the 8×8 marking. Hold and slide to aim with the magnifier; drag a marker to adjust it.";
    const [cx, cy] = HINT_DOT[corner];
    $("hint-dot").setAttribute("cx", cx);
    $("hint-dot").setAttribute("cy", cy);
  } else if (wizard.step === "colours") {
    title.textContent = "Sample the token colours";
    text.textContent = wizard.slot < colourSlots()
      ? `Tap a token of colour ${wizard.slot + 1} on the frame (or continue without).`
      : "All colours sampled.";
  } else {
    title.textContent = "Save the calibration";
    text.textContent = "Check that the grid lies on the printed lines of every tier, then save.";
  }
}

function colourSlots() {
  return Number($("colour-count").value);
}

// Image pixel under a pointer event.
function imagePoint(event) {
  const rect = $("overlay").getBoundingClientRect();
  return [
    ((event.clientX - rect.left) * wizard.capture.width) / rect.width,
    ((event.clientY - rect.top) * wizard.capture.height) / rect.height,
  ];
}

function drawOverlay() {
  const svg = $("overlay");
  svg.replaceChildren();
  if (!wizard.capture) return;
  // Markers keep the same size on screen whatever the frame's size and zoom.
  const shown = svg.getBoundingClientRect().width;
  const scale = shown ? wizard.capture.width / shown : 1;
  if (wizard.preview) {
    for (const [, tier] of Object.entries(wizard.preview.tiers || {})) {
      for (const line of tier.lines) el("polyline", { class: "grid-line", points: line.map((p) => p.join(",")).join(" ") }, svg);
      for (const [u, v] of tier.centres) el("circle", { class: "centre", cx: u, cy: v, r: 1.5 * scale }, svg);
    }
  }
  for (const tier of TIERS) {
    for (const corner of CORNERS) {
      const uv = (wizard.clicks[tier] || {})[corner];
      if (!uv) continue;
      const mark = el("circle", { class: "landmark", cx: uv[0], cy: uv[1], r: 9 * scale, "data-tier": tier, "data-corner": corner }, svg);
      mark.dataset.landmark = `${tier}${corner}`;
      el("text", { class: "landmark-label", x: uv[0] + 11 * scale, y: uv[1] - 9 * scale, "font-size": 13 * scale }, svg).textContent = `${tier} ${corner}`;
    }
  }
  for (const tap of wizard.taps || []) el("circle", { class: "tap", cx: tap[0], cy: tap[1], r: 8 * scale }, svg);
}

function showMagnifier(event, uv) {
  const canvas = $("magnifier");
  const stage = $("stage").getBoundingClientRect();
  const image = $("capture-image");
  const size = canvas.width;
  const source = size / ZOOM;
  const context = canvas.getContext("2d");
  context.imageSmoothingEnabled = false;
  context.fillStyle = "#000";
  context.fillRect(0, 0, size, size);
  context.drawImage(image, uv[0] - source / 2, uv[1] - source / 2, source, source, 0, 0, size, size);
  context.strokeStyle = "rgba(255,255,255,.9)";
  context.lineWidth = 1;
  context.beginPath();
  context.moveTo(size / 2, 0); context.lineTo(size / 2, size);
  context.moveTo(0, size / 2); context.lineTo(size, size / 2);
  context.stroke();
  // Keep the magnifier above the finger, inside the stage.
  const x = Math.min(Math.max(event.clientX - stage.left - size / 2, 0), stage.width - size);
  let y = event.clientY - stage.top - size - 40;
  if (y < 0) y = event.clientY - stage.top + 40;
  canvas.style.left = `${x}px`;
  canvas.style.top = `${y}px`;
  canvas.hidden = false;
}

// Fits are asked for on every click and answered by a threaded server, so an older answer
// can arrive after a newer one: only the answer to the latest request is shown.
let latestFit = 0;

async function refit() {
  drawOverlay();
  $("undo-click").disabled = !wizard.history.length;
  $("reset-clicks").disabled = !wizard.history.length;
  const request = ++latestFit;
  if (!wizard.history.length) { wizard.preview = null; $("fit-info").textContent = ""; return; }
  let preview;
  try {
    preview = await postJSON("/api/wizard/fit", { capture: wizard.capture.capture, clicks: wizard.clicks });
  } catch (error) {
    if (request === latestFit) toast(error.message, { bad: true });
    return;
  }
  if (request !== latestFit) return; // a newer fit is on its way
  wizard.preview = preview;
  const problem = $("fit-problem");
  problem.hidden = !wizard.preview.problem;
  problem.textContent = wizard.preview.problem || "";
  $("fit-info").textContent = wizard.preview.complete
    ? `fitted · ${wizard.preview.rms_px.toFixed(2)} px average error`
    : `${Object.keys(wizard.preview.tiers).length} of 4 tiers`;
  document.body.dataset.fit = wizard.preview.complete ? "complete" : "partial";
  drawOverlay();
  if (wizard.step === "landmarks" && !nextLandmark() && wizard.preview.complete) setStep("colours");
  else instruct();
}

function setLandmark(tier, corner, uv) {
  wizard.clicks[tier] = { ...(wizard.clicks[tier] || {}), [corner]: uv.map((c) => Math.round(c * 10) / 10) };
}

async function sampleAt(uv) {
  if (wizard.slot >= colourSlots()) return;
  // The slot is taken at the tap: quick taps fill the slots in tap order, whatever order
  // the server's answers come in.
  const slot = wizard.slot;
  wizard.slot += 1;
  wizard.taps = [...(wizard.taps || []), uv];
  renderPalette();
  drawOverlay();
  try {
    const answer = await postJSON("/api/wizard/sample", { capture: wizard.capture.capture, taps: [uv] });
    wizard.palette[slot] = answer.colours[0];
  } catch (error) {
    if (wizard.slot === slot + 1) { // no later tap: give the slot back
      wizard.slot = slot;
      wizard.taps = wizard.taps.slice(0, -1);
    }
    toast(error.message, { bad: true });
  }
  renderPalette();
  drawOverlay();
  instruct();
}

function renderPalette() {
  const holder = $("palette");
  holder.replaceChildren();
  for (let slot = 0; slot < colourSlots(); slot += 1) {
    const chip = document.createElement("div");
    chip.className = `palette-chip${slot === wizard.slot ? " active" : ""}`;
    const swatch = document.createElement("span");
    swatch.className = "swatch";
    const rgb = wizard.palette[slot];
    if (rgb) swatch.style.background = `rgb(${rgb.join(",")})`;
    chip.append(swatch, rgb ? `Colour ${slot + 1}` : `Colour ${slot + 1}: tap a token`);
    holder.append(chip);
  }
}

function wireStage() {
  const svg = $("overlay");
  let gesture = null;
  svg.addEventListener("pointerdown", (event) => {
    if (!wizard.capture) return;
    event.preventDefault();
    const target = event.target.dataset && event.target.dataset.landmark ? event.target : null;
    // On a marker: dragging moves it; in the colour step a tap without moving still samples
    // (a token may sit right over a corner of a lower tier in the image).
    if (target) {
      gesture = { kind: "drag", tier: target.dataset.tier, corner: target.dataset.corner,
        x: event.clientX, y: event.clientY, moved: false, sampleOnTap: wizard.step === "colours" };
    } else if (wizard.step === "landmarks" && nextLandmark()) gesture = { kind: "place" };
    else if (wizard.step === "colours") gesture = { kind: "sample" };
    else return;
    svg.setPointerCapture(event.pointerId);
    showMagnifier(event, imagePoint(event));
  });
  svg.addEventListener("pointermove", (event) => {
    if (!gesture) return;
    const uv = imagePoint(event);
    showMagnifier(event, uv);
    if (gesture.kind === "drag") {
      gesture.moved ||= Math.hypot(event.clientX - gesture.x, event.clientY - gesture.y) > 4;
      if (gesture.moved) { setLandmark(gesture.tier, gesture.corner, uv); drawOverlay(); }
    }
  });
  const finish = (event) => {
    if (!gesture) return;
    const uv = imagePoint(event);
    $("magnifier").hidden = true;
    const done = gesture;
    gesture = null;
    if (done.kind === "place") {
      const [tier, corner] = nextLandmark();
      setLandmark(tier, corner, uv);
      wizard.history.push([tier, corner]);
      instruct();
      refit();
    } else if (done.kind === "drag" && done.moved) {
      setLandmark(done.tier, done.corner, uv);
      refit();
    } else if (done.kind === "drag" && done.sampleOnTap) {
      sampleAt(uv);
    } else if (done.kind === "sample") {
      sampleAt(uv);
    }
  };
  svg.addEventListener("pointerup", finish);
  svg.addEventListener("pointercancel", () => { gesture = null; $("magnifier").hidden = true; });
}

async function captureFrame() {
  try {
    wizard.capture = await postJSON("/api/wizard/capture");
  } catch (error) {
    toast(error.message, { bad: true });
    return;
  }
  Object.assign(wizard, { clicks: {}, history: [], preview: null, palette: [], slot: 0, taps: [] });
  const image = $("capture-image");
  image.onload = () => {
    $("stage-empty").hidden = true;
    image.hidden = false;
    $("stage").scrollIntoView({ block: "nearest" });
    $("overlay").setAttribute("viewBox", `0 0 ${wizard.capture.width} ${wizard.capture.height}`);
    $("capture-button").textContent = "Capture again";
    renderPalette();
    setStep("landmarks");
    refit();
  };
  image.src = `/api/wizard/capture/${wizard.capture.capture}.jpg`;
}

async function save() {
  const filled = wizard.palette.filter(Boolean);
  const body = { capture: wizard.capture.capture, clicks: wizard.clicks, palette: filled.length === colourSlots() ? filled : [] };
  try {
    const answer = await control("/api/calibration", body);
    const result = $("save-result");
    result.textContent = `Saved to ${answer.path} (average error ${answer.rms_px.toFixed(2)} px). The camera uses it now.`;
    result.hidden = false;
    toast("Calibration saved");
  } catch (error) {
    toast(error.message, { bad: true });
  }
}

function wireButtons() {
  $("capture-button").addEventListener("click", captureFrame);
  $("undo-click").addEventListener("click", () => {
    const last = wizard.history.pop();
    if (!last) return;
    delete wizard.clicks[last[0]][last[1]];
    if (wizard.step !== "landmarks") setStep("landmarks");
    instruct();
    refit();
  });
  $("reset-clicks").addEventListener("click", () => {
    Object.assign(wizard, { clicks: {}, history: [], preview: null });
    setStep("landmarks");
    refit();
  });
  $("colour-count").addEventListener("change", () => {
    wizard.palette = wizard.palette.slice(0, colourSlots());
    wizard.slot = Math.min(wizard.slot, colourSlots());
    renderPalette();
    instruct();
  });
  $("palette-clear").addEventListener("click", () => {
    Object.assign(wizard, { palette: [], slot: 0, taps: [] });
    renderPalette();
    drawOverlay();
    instruct();
  });
  $("to-save").addEventListener("click", () => setStep("save"));
  $("save-button").addEventListener("click", save);
}

setupPage();
window.addEventListener("resize", drawOverlay);
wireStage();
wireButtons();
setStep("capture");
