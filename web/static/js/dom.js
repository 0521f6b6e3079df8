// Small page pieces the dashboard and the hand-played game pages both build, made one way.

// A round colour swatch; pages that draw it inline as <i> pass the tag.
export function swatch(css, tag = "span") {
  const element = document.createElement(tag);
  element.className = "swatch";
  element.style.background = css;
  return element;
}

// A button (never a form submit) holding content, running onClick when tapped.
export function actionButton(onClick, ...content) {
  const button = document.createElement("button");
  button.type = "button";
  button.append(...content);
  button.addEventListener("click", onClick);
  return button;
}

// Puts items in a list, or one line of emptyText (in class emptyClass) when there are none,
// so that an empty list says so instead of vanishing.
export function fillList(list, items, emptyText, emptyClass) {
  if (items.length) {
    list.replaceChildren(...items);
    return;
  }
  const li = document.createElement("li");
  li.className = emptyClass;
  li.textContent = emptyText;
  list.replaceChildren(li);
}
