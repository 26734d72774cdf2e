// The level dialog of the dashboard: view a stored level, play it, or edit a copy.
// Every board shown is the server's own picture (preview.svg), so the page holds no game
// rules: moves are checked by POST .../check, hints come from .../hint, edits are proven by
// POST /verify. What the page knows of a game is the shape of its moves, read from the
// level's solution, and its palette (GET /games).
"use strict";

// User units per cell in every preview: cell (x, y) covers x*CELL..(x+1)*CELL (games/src/svg.rs).
const CELL = 40;
const ARROW_KEYS = { ArrowUp: "U", ArrowDown: "D", ArrowLeft: "L", ArrowRight: "R" };
const ARROW_GLYPHS = { U: "↑", D: "↓", L: "←", R: "→" };
const SWIPE_PX = 24;

const dialog = { summary: null, stored: null, mode: "view", play: null, edit: null };

// ---- opening and modes ----------------------------------------------------------------

async function openLevel(level) {
  dialog.summary = level;
  dialog.stored = null;
  dialog.play = null;
  dialog.edit = null;
  $("#level-title").textContent = `${level.game} · ${level.difficulty} · seed ${level.seed}`;
  $("#level-preview").src = `${level.links.preview}&solution=true`;
  $("#level-json").href = level.links.level;
  const facts = [
    ["par", level.par],
    ["rating", level.rating === null ? "unrated" : `${level.rating} ± ${level.rating_deviation}`],
    ["rating vs its par", level.rating_above_par === null ? "–" : signed(level.rating_above_par)],
    ["rated plays", level.rated_plays],
    ["solver states", level.states],
    ["optimal solutions", level.solution_count],
    ["attempts", level.attempts],
    ["generate / solve ms", `${level.generate_ms} / ${level.solve_ms}`],
    ["version", level.version],
  ];
  $("#level-facts").replaceChildren(...facts.flatMap(([name, value]) => [element("dt", {}, name), element("dd", {}, String(value))]));
  $("#level-solution").textContent = "…";
  $("#level-metrics").textContent = "…";
  showMode("view");
  if (!$("#level").open) $("#level").showModal();
  try {
    dialog.stored = await getJson(level.links.level);
    $("#level-solution").textContent = JSON.stringify(dialog.stored.solution);
    $("#level-metrics").textContent = JSON.stringify(dialog.stored.metrics, null, 2);
  } catch (error) {
    $("#level-metrics").textContent = error.message;
  }
}

function showMode(mode) {
  dialog.mode = mode;
  for (const button of document.querySelectorAll(".modes button")) {
    button.setAttribute("aria-pressed", String(button.dataset.mode === mode));
  }
  for (const name of ["view", "play", "edit"]) $(`#mode-${name}`).hidden = name !== mode;
}

async function switchMode(mode) {
  if (!dialog.stored) return;
  showMode(mode);
  if (mode === "play" && !dialog.play) await startPlay();
  if (mode === "edit" && !dialog.edit) await startEdit();
}

// A level URL of the open level's own routes: `check`, `hint`, `plays`.
function levelRoute(action) {
  const { game, difficulty, seed } = dialog.summary;
  return `/levels/${difficulty}/${seed}/${action}?game=${encodeURIComponent(game)}`;
}

// How a move is made, from the shape of the level's solution: direction letters (tilts and
// hops), paths of cells (links), or placements of a piece on cells.
function moveKind(solution) {
  if (typeof solution === "string") return "letters";
  return Array.isArray(solution[0]) ? "path" : "placement";
}

function palette() {
  return view.games.get(dialog.summary.game)?.palette ?? [];
}

function cellText([x, y]) {
  return `(${x},${y})`;
}

// ---- boards: the server's picture with a pointer layer over it -------------------------

function board(id) {
  const root = $(id);
  return { root, image: root.querySelector("img"), overlay: root.querySelector("svg") };
}

// Shows `src` and resolves once it is drawn (the tests wait on `data-shown`).
function showImage(image, src, shown) {
  return new Promise((resolve) => {
    image.onload = image.onerror = () => {
      image.dataset.shown = shown;
      resolve();
    };
    image.src = src;
  });
}

// The cell under a pointer event, or null past the board.
function cellAt(image, event, width, height) {
  const rect = image.getBoundingClientRect();
  const units = image.naturalWidth / rect.width;
  const x = Math.floor(((event.clientX - rect.left) * units) / CELL);
  const y = Math.floor(((event.clientY - rect.top) * units) / CELL);
  return x >= 0 && y >= 0 && x < width && y < height ? [x, y] : null;
}

// Marks cells over the picture: `groups` is a list of [cssClass, cells].
function mark(overlayOf, groups) {
  const { image, overlay } = overlayOf;
  overlay.setAttribute("viewBox", `0 0 ${image.naturalWidth || 1} ${image.naturalHeight || 1}`);
  const shapes = [];
  for (const [cssClass, cells] of groups) {
    for (const [x, y, label] of cells) {
      shapes.push(svgElement("rect", { class: cssClass, x: x * CELL + 3, y: y * CELL + 3, width: CELL - 6, height: CELL - 6, rx: 6 }));
      if (label !== undefined) {
        shapes.push(svgElement("text", { class: cssClass, x: x * CELL + CELL / 2, y: y * CELL + CELL / 2 }, label));
      }
    }
  }
  overlay.replaceChildren(...shapes);
}

// ---- play ----------------------------------------------------------------------------------

function randomId() {
  const bytes = crypto.getRandomValues(new Uint8Array(16));
  return [...bytes].map((b) => b.toString(16).padStart(2, "0")).join("");
}

// The player this browser plays as (POST /players, kept in localStorage), so a designer's
// playtests are rated like any player's. Its token is a player's, not the designer key: it
// only records plays.
const PLAYER = "levelforge.player";

async function player(fresh = false) {
  const kept = fresh ? null : JSON.parse(localStorage.getItem(PLAYER) || "null");
  if (kept?.token) return kept;
  const answer = await post("/players", {});
  if (!answer.ok) throw new Error(`No player to record the play as: ${problem(answer)}`);
  const made = { player: answer.body.player, token: answer.body.token };
  localStorage.setItem(PLAYER, JSON.stringify(made));
  return made;
}

async function startPlay() {
  const stored = dialog.stored;
  const kind = moveKind(stored.solution);
  dialog.play = {
    kind,
    moves: [],
    outcome: null,
    path: [],
    cells: [],
    piece: null,
    hint: null,
    started: Date.now(),
    recorded: false,
    queue: Promise.resolve(),
    hand: kind === "placement" ? stored.solution.map((p) => p.piece).sort() : [],
    pieceSize: kind === "placement" ? stored.solution[0].cells.length : 0,
  };
  $("#play-arrows").hidden = kind !== "letters";
  $("#play-hand").hidden = kind !== "placement";
  $("#play-how").textContent = {
    letters: "Arrow keys, swipes on the board or the buttons below make a move.",
    path: "Click a numbered cell, then each cell of the link in turn, ending on another number. Click the last cell again to take it back.",
    placement: `Choose a piece of the hand, then click its ${dialog.play.pieceSize} cells.`,
  }[kind];
  $("#play-recorded").textContent = "";
  await showPlay();
}

// Runs play actions one at a time, in the order they came (fast keys included).
function act(action) {
  const play = dialog.play;
  const root = $("#mode-play");
  root.dataset.busy = "true";
  play.queue = play.queue
    .then(action)
    .catch((error) => say(error.message))
    .finally(() => {
      if (dialog.play === play) root.dataset.busy = "false";
    });
  return play.queue;
}

function say(text) {
  $("#play-status").textContent = text;
}

// The moves as the API takes them: a string of letters, or a list.
function movesValue(moves = dialog.play.moves) {
  return dialog.play.kind === "letters" ? moves.join("") : moves;
}

async function check(moves) {
  return post(levelRoute("check"), { moves: movesValue(moves) });
}

async function tryMove(move) {
  const play = dialog.play;
  if (play.outcome && play.outcome.status !== "unfinished") {
    return say("The level is over: undo or restart.");
  }
  const moves = [...play.moves, move];
  const answer = await check(moves);
  if (!answer.ok) return say(`Not a move: ${problem(answer)}`);
  play.moves = moves;
  play.outcome = answer.body;
  play.hint = null;
  await showPlay();
  if (answer.body.status !== "unfinished") await recordPlay();
}

async function undo() {
  const play = dialog.play;
  if (!play.moves.length) return;
  play.moves = play.moves.slice(0, -1);
  play.outcome = play.moves.length ? (await check(play.moves)).body : null;
  play.hint = null;
  await showPlay();
}

async function restart() {
  Object.assign(dialog.play, { moves: [], outcome: null, hint: null, path: [], cells: [], started: Date.now() });
  $("#play-recorded").textContent = "";
  await showPlay();
}

async function showPlay() {
  const play = dialog.play;
  const outcome = play.outcome;
  const status = outcome?.status ?? "unfinished";
  const used = outcome?.moves_used ?? 0;
  $("#play-count").textContent = `Moves ${used} / par ${dialog.stored.par}`;
  $("#mode-play").dataset.status = status;
  const medals = status === "won" ? outcome.medals : [];
  $("#play-medals").replaceChildren(...medals.map((m) => element("span", { class: "medal" }, `★ ${m}`)));
  say({
    won: `Won in ${used} moves${medals.length ? "" : " (over par: no medal)"}.`,
    lost: `Lost: ${outcome?.reason ?? "no win from here"}. Undo or restart.`,
    unfinished: "",
  }[status]);
  showHint();
  showHand();
  const src = play.moves.length
    ? `${dialog.summary.links.preview}&moves=${encodeURIComponent(play.kind === "letters" ? movesValue() : JSON.stringify(movesValue()))}`
    : dialog.summary.links.preview;
  await showImage(board("#play-board").image, src, String(play.moves.length));
  markPlay();
}

function markPlay() {
  const play = dialog.play;
  const hinted = hintCells(play.hint?.next);
  mark(board("#play-board"), [["hint", hinted], ["pending", [...play.path, ...play.cells]]]);
}

// A finished play (won or lost) goes to /plays, as any player's would.
async function recordPlay() {
  const play = dialog.play;
  const body = {
    solved: play.outcome.status === "won",
    moves: movesValue(),
    time_ms: Date.now() - play.started,
  };
  const note = $("#play-recorded");
  const send = async (fresh) => {
    const { token } = await player(fresh);
    return post(levelRoute("plays"), body, { authorization: `Bearer ${token}`, "Idempotency-Key": randomId() });
  };
  let answer;
  try {
    answer = await send(false);
    // A kept token the server no longer knows (the player was erased, or another
    // database): a new player, once.
    if (answer.status === 401) answer = await send(true);
  } catch (error) {
    note.textContent = `The play was not recorded: ${error.message}`;
    return;
  }
  if (!answer.ok) {
    note.textContent = `The play was not recorded: ${problem(answer)}`;
    return;
  }
  const rating = answer.body.rated ? ` Your rating: ${Math.round(answer.body.player_rating.after)}.` : " (not rated: not your first play of this level)";
  note.textContent = `Play recorded.${rating}`;
  note.dataset.recorded = String(answer.body.id);
}

// ---- hints -----------------------------------------------------------------------------

async function askHint() {
  const play = dialog.play;
  const answer = await post(levelRoute("hint"), { moves: movesValue() });
  if (!answer.ok) {
    play.hint = null;
    $("#play-hint-text").textContent = `No hint: ${problem(answer)}`;
    return;
  }
  play.hint = answer.body;
  showHint();
  markPlay();
}

function describeMove(move) {
  const play = dialog.play;
  if (play.kind === "letters") return `press ${ARROW_GLYPHS[move]} (${move})`;
  if (play.kind === "path") return `draw the link ${move.map(cellText).join(" → ")}`;
  return `place ${move.piece} on ${move.cells.map(cellText).join(" ")}`;
}

function showHint() {
  const hint = dialog.play.hint;
  const text = $("#play-hint-text");
  text.dataset.next = hint?.next ? JSON.stringify(hint.next) : "";
  if (!hint) return (text.textContent = "");
  if (hint.status === "won") {
    text.textContent = "Solved.";
  } else if (hint.next !== null) {
    const next = typeof hint.next === "string" ? hint.next : hint.next[0];
    text.textContent = `Hint: ${describeMove(next)} · ${hint.distance} to go.`;
  } else if (hint.undo !== null) {
    const conflict = hint.conflict === null ? "" : ` Move ${hint.conflict + 1} is in no solution.`;
    text.textContent = `Dead end: undo ${hint.undo} move${hint.undo === 1 ? "" : "s"}.${conflict}`;
  } else {
    text.textContent = "No win can be reached.";
  }
}

function hintCells(next) {
  if (!next || typeof next === "string") return [];
  const [move] = next;
  return Array.isArray(move) ? move : move.cells;
}

// ---- play input: keys and swipes for letters, clicks for paths and placements ------------

function onKey(event) {
  const play = dialog.play;
  if (!$("#level").open || dialog.mode !== "play" || !play) return;
  if (event.key === "Backspace") {
    event.preventDefault();
    act(undo);
  } else if (play.kind === "letters" && ARROW_KEYS[event.key]) {
    event.preventDefault();
    act(() => tryMove(ARROW_KEYS[event.key]));
  }
}

function onBoardPointer() {
  const { image } = board("#play-board");
  let down = null;
  image.addEventListener("pointerdown", (event) => {
    down = { x: event.clientX, y: event.clientY };
    // A swipe may end off the board: its pointerup still comes here.
    image.setPointerCapture(event.pointerId);
    event.preventDefault();
  });
  image.addEventListener("pointerup", (event) => {
    const play = dialog.play;
    if (!down || !play) return;
    const [dx, dy] = [event.clientX - down.x, event.clientY - down.y];
    down = null;
    if (play.kind === "letters") {
      if (Math.max(Math.abs(dx), Math.abs(dy)) < SWIPE_PX) return;
      const letter = Math.abs(dx) > Math.abs(dy) ? (dx > 0 ? "R" : "L") : dy > 0 ? "D" : "U";
      act(() => tryMove(letter));
      return;
    }
    const cell = cellAt(image, event, dialog.stored.width, dialog.stored.height);
    if (cell) act(() => (play.kind === "path" ? extendPath(cell) : toggleCell(cell)));
  });
}

function sameCell(a, b) {
  return a && b && a[0] === b[0] && a[1] === b[1];
}

// A link runs from a marked (non-blank) cell through blank cells to another marked cell.
async function extendPath(cell) {
  const play = dialog.play;
  const blank = palette()[0]?.char;
  const isBlank = ([x, y]) => [...dialog.stored.grid[y]][x] === blank;
  const at = play.path.findIndex((c) => sameCell(c, cell));
  const last = play.path[play.path.length - 1];
  if (sameCell(last, cell)) {
    play.path.pop();
  } else if (at >= 0) {
    play.path = play.path.slice(0, at + 1);
  } else if (!last || Math.abs(last[0] - cell[0]) + Math.abs(last[1] - cell[1]) !== 1) {
    play.path = isBlank(cell) ? [] : [cell];
  } else {
    play.path.push(cell);
    if (!isBlank(cell)) {
      const link = play.path;
      play.path = [];
      markPlay();
      return tryMove(link);
    }
  }
  markPlay();
}

async function toggleCell(cell) {
  const play = dialog.play;
  const at = play.cells.findIndex((c) => sameCell(c, cell));
  if (at >= 0) play.cells.splice(at, 1);
  else play.cells.push(cell);
  markPlay();
  await placeIfReady();
}

async function placeIfReady() {
  const play = dialog.play;
  if (!play.piece || play.cells.length !== play.pieceSize) return;
  const move = { piece: play.piece, cells: play.cells };
  play.cells = [];
  await tryMove(move);
  if (!remaining().includes(play.piece)) play.piece = null;
  showHand();
  markPlay();
}

// The hand less the pieces placed.
function remaining() {
  const left = [...dialog.play.hand];
  for (const move of dialog.play.moves) left.splice(left.indexOf(move.piece), 1);
  return left;
}

function showHand() {
  const play = dialog.play;
  if (play.kind !== "placement") return;
  const left = remaining();
  const kinds = [...new Set(play.hand)];
  $("#play-hand").replaceChildren(
    ...kinds.map((piece) => {
      const count = left.filter((p) => p === piece).length;
      const button = element("button", { type: "button", "data-piece": piece, "aria-pressed": String(play.piece === piece) }, `${piece} ×${count}`);
      button.disabled = count === 0;
      button.addEventListener("click", () =>
        act(async () => {
          play.piece = piece;
          showHand();
          await placeIfReady();
        }),
      );
      return button;
    }),
  );
}

// ---- edit ------------------------------------------------------------------------------------

async function startEdit() {
  const { par, solution, metrics, ...draft } = dialog.stored;
  const pieces = palette();
  dialog.edit = { draft: { ...draft, grid: [...draft.grid] }, piece: pieces[1] ?? pieces[0], report: null, drawn: null, revision: 0 };
  $("#palette").replaceChildren(
    ...pieces.map((piece) => {
      const button = element("button", { type: "button", "data-char": piece.char, title: piece.name }, `${piece.char} ${piece.name}`);
      button.addEventListener("click", () => {
        dialog.edit.piece = piece;
        showPalette();
      });
      return button;
    }),
  );
  showPalette();
  await reverify();
}

function showPalette() {
  for (const button of document.querySelectorAll("#palette button")) {
    button.setAttribute("aria-pressed", String(button.dataset.char === dialog.edit.piece.char));
  }
}

// A click places the chosen piece, or puts the blank back where that piece already is.
function editCell([x, y]) {
  const edit = dialog.edit;
  const row = [...edit.draft.grid[y]];
  row[x] = row[x] === edit.piece.char ? palette()[0].char : edit.piece.char;
  edit.draft.grid[y] = row.join("");
  return reverify();
}

async function reverify() {
  const edit = dialog.edit;
  const revision = ++edit.revision;
  const verdict = $("#edit-verdict");
  verdict.dataset.state = "checking";
  verdict.textContent = "Verifying…";
  const game = encodeURIComponent(dialog.summary.game);
  const answer = await post(`/verify?game=${game}`, edit.draft);
  if (revision !== edit.revision) return;
  if (!answer.ok) {
    const invalid = answer.status === 422;
    edit.report = null;
    showVerdict(invalid ? "invalid" : "unavailable", invalid ? `Invalid: ${problem(answer)}` : `Not verified: ${problem(answer)}`);
    showEditFacts(null);
    markEdits();
    return;
  }
  const report = answer.body;
  edit.report = report;
  const drawn = { ...edit.draft, ...(report.solvable ? { solution: report.solution } : {}) };
  const picture = await post(`/preview.svg?game=${game}&solution=${report.solvable === true}`, drawn);
  if (revision !== edit.revision) return;
  if (picture.ok) {
    await showImage(board("#edit-board").image, `data:image/svg+xml;charset=utf-8,${encodeURIComponent(picture.body)}`, String(revision));
    edit.drawn = [...edit.draft.grid];
  }
  markEdits();
  if (report.solvable === true) showVerdict("solvable", `Valid and solvable in ${report.par}.`);
  else if (report.solvable === false) showVerdict("unsolvable", "Valid, but no solution: unsolvable.");
  else showVerdict("gave-up", `Valid; the solver gave up: ${report.gave_up}.`);
  showEditFacts(report);
}

function showVerdict(state, text) {
  const verdict = $("#edit-verdict");
  verdict.dataset.state = state;
  verdict.textContent = text;
  // Only a level the solver proved goes to a collection (publishing proves it again).
  $("#edit-add").disabled = state !== "solvable";
  exportLink();
}

// Cells changed since the last picture the server could draw (an invalid draft has none).
function markEdits() {
  const edit = dialog.edit;
  const changed = [];
  if (edit.drawn) {
    edit.draft.grid.forEach((row, y) => {
      const before = [...edit.drawn[y]];
      [...row].forEach((c, x) => c !== before[x] && changed.push([x, y, c]));
    });
  }
  mark(board("#edit-board"), [["edited", changed]]);
}

function showEditFacts(report) {
  const keys = view.games.get(dialog.summary.game)?.key_metrics ?? [];
  const facts = report
    ? [
        ["par", report.par ?? "–"],
        ["optimal solutions", report.metrics?.solution_count ?? "–"],
        ["solver states", report.metrics?.states ?? "–"],
        ["accepted by", report.accepted_by.length ? report.accepted_by.join(", ") : "no tier"],
        ...keys.map((key) => [key, report.metrics?.[key] ?? "–"]),
      ]
    : [];
  $("#edit-facts").replaceChildren(
    ...facts.flatMap(([name, value]) => [element("dt", {}, name), element("dd", { "data-fact": name }, String(value))]),
  );
  $("#edit-solution").textContent = report?.solvable ? JSON.stringify(report.solution) : "–";
}

// The edited level as a document /verify takes, with the par and solution it was proven to have.
function exportLink() {
  const { draft, report } = dialog.edit;
  const proven = report?.solvable ? { par: report.par, solution: report.solution } : {};
  const link = $("#edit-export");
  link.href = `data:application/json;charset=utf-8,${encodeURIComponent(JSON.stringify({ ...draft, ...proven }, null, 2))}`;
  link.download = `${dialog.summary.game}-${dialog.summary.difficulty}-${dialog.summary.seed}-edited.json`;
}

function onEditClick(event) {
  if (!dialog.edit) return;
  const cell = cellAt(board("#edit-board").image, event, dialog.stored.width, dialog.stored.height);
  if (cell) editCell(cell);
}

// ---- wiring ----------------------------------------------------------------------------------

function wireLevelDialog() {
  for (const button of document.querySelectorAll(".modes button")) {
    button.addEventListener("click", () => switchMode(button.dataset.mode));
  }
  document.addEventListener("keydown", onKey);
  onBoardPointer();
  for (const button of document.querySelectorAll("#play-arrows button")) {
    button.addEventListener("click", () => act(() => tryMove(button.dataset.move)));
  }
  $("#play-undo").addEventListener("click", () => act(undo));
  $("#play-restart").addEventListener("click", () => act(restart));
  $("#play-hint").addEventListener("click", () => act(askHint));
  board("#edit-board").image.addEventListener("click", onEditClick);
  $("#level-add").addEventListener("click", () => addStoredLevel(dialog.summary));
  $("#edit-add").addEventListener("click", () => {
    const { draft: edited, report } = dialog.edit;
    if (report?.solvable === true) addEditedLevel(dialog.summary.game, structuredClone(edited), report.par);
  });
}

wireLevelDialog();
