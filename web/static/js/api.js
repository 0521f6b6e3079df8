// Talking to the boardcam server: JSON reads, and control requests with the PIN session + CSRF token.

let csrfToken = null;
let hasControl = false;
let askForPin = null; // set by pin.js: () => Promise<boolean> (true once logged in)
const controlListeners = new Set();

export class ApiError extends Error {
  constructor(status, message) {
    super(message);
    this.status = status;
  }
}

async function parse(response) {
  const type = response.headers.get("Content-Type") || "";
  const body = type.includes("application/json") ? await response.json() : await response.text();
  if (!response.ok) {
    const message = body && body.error ? body.error : `HTTP ${response.status}`;
    throw new ApiError(response.status, message);
  }
  return body;
}

export async function getJSON(url) {
  return parse(await fetch(url, { headers: { Accept: "application/json" }, cache: "no-store" }));
}

export async function postJSON(url, body = {}) {
  return parse(await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json" },
    body: JSON.stringify(body),
  }));
}

function setSession(info) {
  csrfToken = info.csrf;
  hasControl = Boolean(info.control);
  controlListeners.forEach((listener) => listener(hasControl));
}

export async function refreshSession() {
  setSession(await getJSON("/api/session"));
  return hasControl;
}

export function onControlChange(listener) {
  controlListeners.add(listener);
  listener(hasControl);
}

export function setPinPrompt(prompt) {
  askForPin = prompt;
}

export function controlAllowed() {
  return hasControl;
}

export async function login(pin) {
  setSession(await postJSON("/api/login", { pin }));
}

export async function logout() {
  setSession(await postJSON("/api/logout"));
}

async function sendControl(url, body) {
  if (csrfToken === null) await refreshSession();
  return parse(await fetch(url, {
    method: "POST",
    headers: { "Content-Type": "application/json", Accept: "application/json", "X-CSRF-Token": csrfToken },
    body: JSON.stringify(body),
  }));
}

// A control request: asks for the PIN once if the server says it is needed, then retries.
export async function control(url, body = {}) {
  try {
    return await sendControl(url, body);
  } catch (error) {
    if (!(error instanceof ApiError) || ![401, 403].includes(error.status) || !askForPin) throw error;
    if (error.status === 403 && hasControl) await refreshSession(); // stale CSRF token
    else if (!(await askForPin())) throw error;
    return sendControl(url, body);
  }
}
