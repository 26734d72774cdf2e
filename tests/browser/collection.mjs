// A designer makes a collection in the dashboard, in Debian's headless Chromium: a stored
// fruit level edited into a new solvable one (a wall placed where the level stays
// solvable) is added from the editor, which refuses to add an invalid edit; two stored
// levels are added from their dialogs; the draft is reordered, sorted by predicted rating
// and published; the public routes serve it back, the edited level at its content's
// address; and a player plays its entries in order, as GET /players/me/collections says.
// Usage: LEVELFORGE_KEY=<designer key> node collection.mjs <server url> <screenshot dir>
import { TIMEOUT, args, check, designerKey, handledStatuses, signIn, withPage } from "./common.mjs";

const { base, shots } = args("collection.mjs");
const CELL = 40; // games/src/svg.rs
// The first page asks GET /session before signing in; /verify answers an invalid edit 422.
handledStatuses.add(401);
handledStatuses.add(422);

async function json(page, url, init = {}) {
  const response = await page.request.fetch(`${base}${url}`, init);
  if (!response.ok()) throw new Error(`${url}: HTTP ${response.status()} ${await response.text()}`);
  return response.json();
}

async function openStored(page, seed) {
  const level = await json(page, `/levels/easy/${seed}?game=fruit`);
  await page.goto(`${base}/?game=fruit&difficulty=easy&par_min=${level.par}&par_max=${level.par}`);
  await page.waitForSelector("body[data-ready=true]", TIMEOUT);
  await page.locator(`#grid .card[data-seed="${seed}"]`).click();
  await page.waitForFunction(() => document.querySelector("#level-solution").textContent !== "…", null, TIMEOUT);
  return level;
}

async function clickCell(page, [x, y]) {
  const image = page.locator("#edit-board img");
  await image.scrollIntoViewIfNeeded();
  const box = await image.boundingBox();
  const natural = await image.evaluate((i) => i.naturalWidth);
  const scale = box.width / natural;
  await page.mouse.click(box.x + (x + 0.5) * CELL * scale, box.y + (y + 0.5) * CELL * scale);
}

async function verdict(page) {
  await page.waitForFunction(() => document.querySelector("#edit-verdict").dataset.state !== "checking", null, TIMEOUT);
  return page.locator("#edit-verdict").getAttribute("data-state");
}

// Walls placed on floor cells one at a time until one leaves the level solvable; every
// other one is taken off again.
async function editIntoSolvable(page, level) {
  await page.locator(".modes button[data-mode=edit]").click();
  check((await verdict(page)) === "solvable", "the copy verifies as solvable");
  await page.locator('#palette button[data-char="#"]').click();
  for (const [y, row] of level.grid.entries()) {
    for (const [x, c] of [...row].entries()) {
      if (c !== ".") continue;
      await clickCell(page, [x, y]);
      if ((await verdict(page)) === "solvable") return [x, y];
      await clickCell(page, [x, y]);
      await verdict(page);
    }
  }
  throw new Error("no wall on a floor cell leaves the level solvable");
}

// A lone fruit of a colour the level lacks, on a floor cell: invalid (fruit.pairs), and
// such an edit cannot be added; taken off again, the edit is solvable once more.
async function refuseInvalid(page, level, wall) {
  const cells = level.grid.map((row) => [...row]);
  const lone = [..."hgfedcba"].find((colour) => !cells.flat().includes(colour));
  const spare = cells.flatMap((r, y) => r.map((c, x) => [x, y, c])).find(([x, y, c]) => c === "." && !(x === wall[0] && y === wall[1]));
  await page.locator(`#palette button[data-char="${lone}"]`).click();
  await clickCell(page, spare);
  const state = await verdict(page);
  check(state === "invalid" && await page.locator("#edit-add").isDisabled(), `an invalid edit cannot be added (${state})`);
  await page.screenshot({ path: `${shots}/dashboard-collection-invalid.png` });
  await clickCell(page, spare);
  check((await verdict(page)) === "solvable", "solvable again");
}

async function addStored(page, seed) {
  await openStored(page, seed);
  await page.locator("#level-add").click();
  await page.keyboard.press("Escape");
}

async function publish(page) {
  await page.locator("#draft-slug").fill("browser-made");
  await page.locator("#draft-title").fill("Made in the dashboard");
  await page.locator("#draft-publish").click();
  await page.waitForFunction(() => ["published", "refused"].includes(document.querySelector("#draft-status").dataset.state), null, TIMEOUT);
  const status = await page.locator("#draft-status").textContent();
  check((await page.locator("#draft-status").getAttribute("data-state")) === "published", `published (${status})`);
  await page.screenshot({ path: `${shots}/dashboard-collection.png`, fullPage: true });
}

// A new player plays every entry in order: `next` names each before its play, none after.
async function playInOrder(page, manifest) {
  const player = await json(page, "/players", { method: "POST" });
  const auth = { authorization: `Bearer ${player.token}` };
  for (const entry of manifest.entries) {
    const progress = await json(page, "/players/me/collections/browser-made", { headers: auth });
    check(progress.next === entry.n, `next is entry ${entry.n} (${JSON.stringify(progress)})`);
    const level = await json(page, entry.href);
    const plays = entry.level.replace("?", "/plays?");
    const played = await json(page, plays, { method: "POST", headers: auth, data: { solved: true, moves: level.solution } });
    check(played.status === "won" && played.verified, `entry ${entry.n} played to a win (${JSON.stringify(played)})`);
  }
  const done = await json(page, "/players/me/collections/browser-made", { headers: auth });
  check(done.next === null && done.entries.every((e) => e.played && e.won), `every entry played (${JSON.stringify(done)})`);
}

await withPage(base, async (page) => {
  await signIn(page, base, designerKey(), "/?game=fruit&difficulty=easy");
  await page.request.get(`${base}/levels/easy?game=fruit&from=1&count=3`);
  const level = await openStored(page, 1);
  const cell = await editIntoSolvable(page, level);
  await refuseInvalid(page, level, cell);
  check(await page.locator("#edit-add").isEnabled(), "a solvable edit can be added");
  await page.locator("#edit-add").click();
  await page.keyboard.press("Escape");
  await addStored(page, 2);
  await addStored(page, 3);
  const entries = () => page.locator("#draft-entries li span").allTextContents();
  check((await entries()).length === 3, `three entries in the draft (${await entries()})`);
  await page.locator('#draft-entries button[aria-label="Move entry 1 down"]').click();
  const moved = await entries();
  check(moved[1].startsWith("edited level"), `the edited level moved down (${moved})`);
  await page.locator("#draft-sort").click();
  const sorted = await entries();
  check(sorted[2].startsWith("edited level") && sorted[0].startsWith("easy"), `sorted: stored by prediction, the edited one last (${sorted})`);
  await publish(page);

  const manifest = await json(page, "/collections/browser-made");
  check(manifest.version === 1 && manifest.size === 3, `the manifest is served (${JSON.stringify(manifest)})`);
  const edited = await json(page, manifest.entries[2].href);
  const expected = level.grid.map((row, y) => (y === cell[1] ? [...row].map((c, x) => (x === cell[0] ? "#" : c)).join("") : row));
  check(edited.difficulty === "custom" && JSON.stringify(edited.grid) === JSON.stringify(expected), `the edited level is served (${JSON.stringify(edited.grid)})`);
  const listed = await json(page, "/collections");
  check(listed.collections.some((c) => c.slug === "browser-made"), "the collection is listed");
  await playInOrder(page, manifest);
  console.log(JSON.stringify({ published: manifest.entries.map((e) => `${e.difficulty}/${e.seed}`) }));
});
