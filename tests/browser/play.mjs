// Plays and edits levels in the dashboard as a designer would, in Debian's headless Chromium.
// - Every game: open a stored easy level, press Play, and win it using only the Hint
//   button and the key, swipe or clicks the hint names; the win shows the par medal, the
//   play is posted, and /stats counts it.
// - Fruit and skiddy: edit a copy into an unsolvable level and back, checking what the
//   editor says each time; fruit also through an invalid level (a lone fruit). Every game:
//   a piece placed and taken off again gives back the level, solvable in its par.
// It signs in first through the sign-in screen; its own reads of /stats share the page's
// session cookie. Writes screenshots of both modes.
// Usage: LEVELFORGE_KEY=<designer key> node play.mjs <server url> <screenshot dir>
import { TIMEOUT, args, check, designerKey, handledStatuses, signIn, withPage } from "./common.mjs";

const { base, shots } = args("play.mjs");
const CELL = 40; // games/src/svg.rs
const KEYS = { U: "ArrowUp", D: "ArrowDown", L: "ArrowLeft", R: "ArrowRight" };
// The editor shows a 422 from /verify as the broken rule; the first page asks GET /session
// before signing in (401).
handledStatuses.add(422);
handledStatuses.add(401);

async function json(page, url) {
  const response = await page.request.get(`${base}${url}`);
  if (!response.ok()) throw new Error(`${url}: HTTP ${response.status()}`);
  return response.json();
}

async function openLevel(page, game, seed) {
  const level = await json(page, `/levels/easy/${seed}?game=${game}`);
  await page.goto(`${base}/?game=${game}&difficulty=easy&par_min=${level.par}&par_max=${level.par}`);
  await page.waitForSelector("body[data-ready=true]", TIMEOUT);
  await page.locator(`#grid .card[data-seed="${seed}"]`).click();
  await page.waitForFunction(() => document.querySelector("#level-solution").textContent !== "…", null, TIMEOUT);
  return level;
}

async function settled(page, mode) {
  await page.waitForSelector(`#mode-${mode}:not([data-busy=true])`, TIMEOUT);
}

// A click in the middle of board cell (x, y), mapped through the picture's viewBox.
async function clickCell(page, boardId, [x, y]) {
  const image = page.locator(`${boardId} img`);
  await image.scrollIntoViewIfNeeded();
  const box = await image.boundingBox();
  const natural = await image.evaluate((i) => i.naturalWidth);
  const scale = box.width / natural;
  await page.mouse.click(box.x + (x + 0.5) * CELL * scale, box.y + (y + 0.5) * CELL * scale);
}

async function swipe(page, letter) {
  await page.locator("#play-board img").scrollIntoViewIfNeeded();
  const box = await page.locator("#play-board img").boundingBox();
  const [cx, cy] = [box.x + box.width / 2, box.y + box.height / 2];
  const [dx, dy] = { U: [0, -80], D: [0, 80], L: [-80, 0], R: [80, 0] }[letter];
  await page.mouse.move(cx, cy);
  await page.mouse.down();
  await page.mouse.move(cx + dx, cy + dy, { steps: 4 });
  await page.mouse.up();
}

async function playState(page) {
  return page.evaluate(() => ({
    status: document.querySelector("#mode-play").dataset.status,
    count: document.querySelector("#play-count").textContent,
    shown: document.querySelector("#play-board img").dataset.shown,
    hint: document.querySelector("#play-hint-text").textContent,
    next: document.querySelector("#play-hint-text").dataset.next,
    medals: [...document.querySelectorAll("#play-medals .medal")].map((m) => m.textContent),
    status_text: document.querySelector("#play-status").textContent,
  }));
}

// Does what the hint's text says: the key (or, every other time, a swipe), the link's
// cells in order, or the piece and its cells.
async function follow(page, next, turn) {
  if (typeof next === "string") {
    if (turn % 2) await swipe(page, next);
    else await page.keyboard.press(KEYS[next]);
  } else if (Array.isArray(next[0])) {
    for (const cell of next[0]) await clickCell(page, "#play-board", cell);
  } else {
    await page.locator(`#play-hand button[data-piece="${next[0].piece}"]`).click();
    for (const cell of next[0].cells) await clickCell(page, "#play-board", cell);
  }
}

async function playToAWin(page, game, shoot) {
  const level = await openLevel(page, game, 1);
  const before = (await json(page, `/stats?game=${game}&difficulty=easy`)).groups[0].plays;
  await page.locator(".modes button[data-mode=play]").click();
  await page.waitForSelector("#play-board img[data-shown='0']", TIMEOUT);
  await settled(page, "play");
  let moves = 0;
  for (let turn = 0; moves < level.par + 2; turn++) {
    await page.locator("#play-hint").click();
    await settled(page, "play");
    const { next, hint } = await playState(page);
    check(next !== "", `${game}: a hint before the win (${hint})`);
    if (!next) break;
    check(hint.includes(`${level.par - moves} to go`), `${game}: the hint counts ${level.par - moves} to go (${hint})`);
    if (shoot && moves === 1) await page.screenshot({ path: `${shots}/dashboard-play.png` });
    await follow(page, JSON.parse(next), turn);
    moves += 1;
    await page.waitForSelector(`#play-board img[data-shown='${moves}']`, TIMEOUT);
    await settled(page, "play");
    if ((await playState(page)).status === "won") break;
  }
  const state = await playState(page);
  check(state.status === "won", `${game}: won by following hints (${JSON.stringify(state)})`);
  check(state.count === `Moves ${level.par} / par ${level.par}`, `${game}: won in par (${state.count})`);
  check(state.medals.some((m) => m.includes("par")), `${game}: the par medal is shown (${state.medals})`);
  await page.waitForSelector("#play-recorded[data-recorded]", TIMEOUT);
  const recorded = await page.locator("#play-recorded").textContent();
  check(recorded.startsWith("Play recorded. Your rating:"), `${game}: the play is recorded and rated (${recorded})`);
  if (shoot) await page.screenshot({ path: `${shots}/dashboard-won.png` });
  const after = (await json(page, `/stats?game=${game}&difficulty=easy`)).groups[0].plays;
  check(after.count === before.count + 1 && after.won === before.won + 1, `${game}: /stats counts the play (${JSON.stringify(after)})`);
  const player = await page.evaluate(() => JSON.parse(localStorage.getItem("levelforge.player") || "null"));
  check(player?.player && player?.token, `${game}: the browser keeps the player it plays as (${JSON.stringify(player?.player)})`);
  players.add(player?.player);
  await page.keyboard.press("Escape");
}

// Undo and Restart take moves back.
async function undoAndRestart(page) {
  const level = await openLevel(page, "hopper", 1);
  await page.locator(".modes button[data-mode=play]").click();
  await settled(page, "play");
  for (const letter of level.solution.slice(0, 2)) {
    await page.keyboard.press(KEYS[letter]);
    await settled(page, "play");
  }
  check((await playState(page)).shown === "2", "two moves made");
  await page.locator("#play-undo").click();
  await settled(page, "play");
  check((await playState(page)).count.startsWith("Moves 1 /"), "undo takes one move back");
  await page.locator("#play-restart").click();
  await settled(page, "play");
  const state = await playState(page);
  check(state.shown === "0" && state.count.startsWith("Moves 0 /"), `restart clears the moves (${JSON.stringify(state)})`);
  await page.keyboard.press("Escape");
}

async function verdict(page) {
  await page.waitForFunction(() => document.querySelector("#edit-verdict").dataset.state !== "checking", null, TIMEOUT);
  return page.evaluate(() => {
    const facts = Object.fromEntries([...document.querySelectorAll("#edit-facts dd")].map((d) => [d.dataset.fact, d.textContent]));
    const verdict = document.querySelector("#edit-verdict");
    return { state: verdict.dataset.state, text: verdict.textContent, facts, solution: document.querySelector("#edit-solution").textContent };
  });
}

async function place(page, char, cells) {
  await page.locator(`#palette button[data-char="${char}"]`).click();
  for (const cell of cells) {
    await clickCell(page, "#edit-board", cell);
    await verdict(page);
  }
}

async function startEditing(page, game, seed, level) {
  await openLevel(page, game, seed);
  await page.locator(".modes button[data-mode=edit]").click();
  const first = await verdict(page);
  check(first.state === "solvable" && first.facts.par === String(level.par), `${game}: the copy verifies as solvable in par ${level.par} (${JSON.stringify(first)})`);
  check(first.facts["accepted by"].includes("easy"), `${game}: the copy is accepted by easy (${first.facts["accepted by"]})`);
  check(first.solution.length > 2, `${game}: the solution is shown`);
}

async function backToSolvable(page, game, level) {
  const after = await verdict(page);
  check(after.state === "solvable" && after.facts.par === String(level.par), `${game}: solvable again in par ${level.par} (${JSON.stringify(after)})`);
  const exported = await page.locator("#edit-export").getAttribute("href");
  const document = JSON.parse(decodeURIComponent(exported.slice(exported.indexOf(",") + 1)));
  check(JSON.stringify(document.grid) === JSON.stringify(level.grid) && document.par === level.par, `${game}: the export is the level with its par`);
}

const grid = (level) => level.grid.map((row) => [...row]);
const neighbours = ([x, y]) => [[x, y - 1], [x, y + 1], [x - 1, y], [x + 1, y]];

// Fruit: walls round a fruit whose neighbours are floor or wall make it unsolvable (the
// fruit can never move and nothing can reach its side); a lone fruit breaks fruit.pairs.
async function editFruit(page) {
  for (let seed = 1; seed <= 40; seed++) {
    const level = await json(page, `/levels/easy/${seed}?game=fruit`);
    const cells = grid(level);
    for (const [y, row] of cells.entries()) {
      for (const [x, c] of row.entries()) {
        if (!/[a-h]/.test(c)) continue;
        const around = neighbours([x, y]);
        if (!around.every(([nx, ny]) => ".#".includes(cells[ny][nx]))) continue;
        const floor = around.filter(([nx, ny]) => cells[ny][nx] === ".");
        await startEditing(page, "fruit", seed, level);
        await place(page, "#", floor);
        const walled = await verdict(page);
        check(walled.state === "unsolvable" && walled.text.includes("unsolvable"), `fruit: walled in, unsolvable (${JSON.stringify(walled)})`);
        check(walled.facts["accepted by"] === "no tier", `fruit: no tier accepts it (${walled.facts["accepted by"]})`);
        await page.screenshot({ path: `${shots}/dashboard-edit-unsolvable.png` });
        await place(page, "#", floor);
        await backToSolvable(page, "fruit", level);
        // A lone fruit of a colour the level lacks, away from every other fruit.
        const lone = [..."hgfedcba"].find((colour) => !cells.flat().includes(colour));
        const spare = cells
          .flatMap((r, yy) => r.map((cc, xx) => [xx, yy, cc]))
          .find(([xx, yy, cc]) => cc === "." && neighbours([xx, yy]).every(([nx, ny]) => !/[a-h]/.test(cells[ny][nx])));
        await place(page, lone, [spare]);
        const broken = await verdict(page);
        check(broken.state === "invalid" && broken.text.includes("fruit.pairs"), `fruit: a lone fruit breaks fruit.pairs (${JSON.stringify(broken)})`);
        const marked = await page.locator("#edit-board .overlay rect.edited").count();
        check(marked === 1, `fruit: the invalid cell is marked on the last picture (${marked})`);
        await place(page, lone, [spare]);
        await backToSolvable(page, "fruit", level);
        await page.screenshot({ path: `${shots}/dashboard-edit.png` });
        await page.keyboard.press("Escape");
        return;
      }
    }
  }
  check(false, "fruit: no easy level among seeds 1..=40 has a fruit between floor and walls");
}

// Skiddy: blocks over every goal of a skiddy's colour leave it no way out.
async function editSkiddy(page) {
  const level = await json(page, "/levels/easy/1?game=skiddy");
  const cells = grid(level);
  const colour = cells.flat().find((c) => /[rybg]/.test(c)).toUpperCase();
  const goals = cells.flatMap((row, y) => row.map((c, x) => [x, y, c])).filter(([, , c]) => c === colour).map(([x, y]) => [x, y]);
  await startEditing(page, "skiddy", 1, level);
  await place(page, "#", goals);
  const blocked = await verdict(page);
  check(blocked.state === "unsolvable", `skiddy: goals of ${colour} blocked, unsolvable (${JSON.stringify(blocked)})`);
  check(blocked.solution === "–", "skiddy: no solution shown when unsolvable");
  await place(page, colour, goals);
  await backToSolvable(page, "skiddy", level);
  await page.keyboard.press("Escape");
}

// Any game: a piece placed on a blank cell and taken off again gives back the level.
async function editRoundTrip(page, game) {
  const level = await json(page, `/levels/easy/1?game=${game}`);
  const palette = (await json(page, "/games")).games.find((g) => g.name === game).palette;
  const [blank, piece] = palette;
  const cells = grid(level);
  const y = cells.findIndex((row) => row.includes(blank.char));
  const x = cells[y].indexOf(blank.char);
  await startEditing(page, game, 1, level);
  await place(page, piece.char, [[x, y]]);
  const changed = await verdict(page);
  check(["solvable", "unsolvable", "invalid"].includes(changed.state), `${game}: a verdict after placing ${piece.name} (${JSON.stringify(changed)})`);
  await place(page, piece.char, [[x, y]]);
  await backToSolvable(page, game, level);
  await page.keyboard.press("Escape");
}

// The players the plays were recorded as: one, made at the first play.
const players = new Set();

await withPage(base, async (page) => {
  await signIn(page, base, designerKey());
  const games = (await json(page, "/games")).games.map((g) => g.name);
  for (const game of games) await playToAWin(page, game, game === "hashi");
  check(players.size === 1, `every play recorded as the same player (${[...players]})`);
  await undoAndRestart(page);
  await editFruit(page);
  await editSkiddy(page);
  for (const game of games) await editRoundTrip(page, game);
  console.log(JSON.stringify({ played: games, edited: games }));
});
