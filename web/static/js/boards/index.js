// Board drawings by board kind (the state's "board"), all of the same shape:
// new Board(container, {onPointClick, layout}) and board.render(view).
import { TimeVectorsBoard } from "./timevectors.js";
import { GrybBoard } from "./gryb.js";

const BOARDS = { timevectors: TimeVectorsBoard, gryb: GrybBoard };

export function createBoard(kind, container, options) {
  const Board = BOARDS[kind];
  if (!Board) throw new Error(`no drawing for board kind ${kind}`);
  return new Board(container, options);
}

// "grid" where there is room for two tiers side by side, else "stack".
export function preferredLayout() {
  return window.matchMedia("(min-width: 900px)").matches ? "grid" : "stack";
}
