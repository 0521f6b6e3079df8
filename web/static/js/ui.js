// Page-wide pieces every page uses: the PIN dialog, the lock button and toasts.
import { login, logout, onControlChange, refreshSession, setPinPrompt, controlAllowed } from "./api.js";

let toastTimer = null;

export function toast(message, { bad = false, ms = 3500 } = {}) {
  const box = document.getElementById("toast");
  box.textContent = message;
  box.classList.toggle("bad", bad);
  box.hidden = false;
  clearTimeout(toastTimer);
  toastTimer = setTimeout(() => { box.hidden = true; }, ms);
}

// Shows the PIN dialog; resolves true after a successful login, false when cancelled.
function promptForPin() {
  const dialog = document.getElementById("pin-dialog");
  const form = document.getElementById("pin-form");
  const input = document.getElementById("pin-input");
  const error = document.getElementById("pin-error");
  const cancel = document.getElementById("pin-cancel");
  error.hidden = true;
  input.value = "";
  return new Promise((resolve) => {
    const finish = (result) => {
      form.removeEventListener("submit", onSubmit);
      cancel.removeEventListener("click", onCancel);
      dialog.removeEventListener("cancel", onCancel);
      if (dialog.open) dialog.close();
      resolve(result);
    };
    const onSubmit = async (event) => {
      event.preventDefault();
      try {
        await login(input.value.trim());
        finish(true);
        toast("Unlocked: you can control the game");
      } catch (err) {
        error.textContent = err.message;
        error.hidden = false;
        input.select();
      }
    };
    const onCancel = (event) => { event.preventDefault(); finish(false); };
    form.addEventListener("submit", onSubmit);
    cancel.addEventListener("click", onCancel);
    dialog.addEventListener("cancel", onCancel);
    dialog.showModal();
    input.focus();
  });
}

export function setupPage() {
  setPinPrompt(promptForPin);
  const lock = document.getElementById("lock-button");
  onControlChange((allowed) => {
    lock.classList.toggle("unlocked", allowed);
    lock.querySelector(".lock-label").textContent = allowed ? "Control on" : "Locked";
    lock.title = allowed ? "Tap to lock control again" : "Control needs the PIN";
  });
  lock.addEventListener("click", async () => {
    if (controlAllowed()) {
      await logout();
      toast("Locked");
    } else {
      await promptForPin();
    }
  });
  refreshSession().catch(() => toast("Cannot reach the boardcam server", { bad: true }));
}

export function formatTime(seconds) {
  if (typeof seconds !== "number") return "";
  return new Date(seconds * 1000).toLocaleTimeString([], { hour: "2-digit", minute: "2-digit", second: "2-digit" });
}
