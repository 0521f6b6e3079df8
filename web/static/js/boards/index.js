// Board drawings by board kind; a second board (GRYB) registers here with the same shape:
// new Board(container, {onPointClick}) and board.render(view).
import { TimeVectorsBoard } from "./timevectors.js";

const BOARDS = { timevectors: TimeVectorsBoard };

export function createBoard(kind, container, options) {
  const Board = BOARDS[kind];
  if (!Board) throw new Error(`no drawing for board kind ${kind}`);
  return new Board(container, options);
}
