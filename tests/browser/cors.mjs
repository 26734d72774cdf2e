// CORS as a game on another origin meets it, in Debian's headless Chromium. The test serves
// cors-page.html from two loopback origins of its own: one in the server's
// CORS_ALLOWED_ORIGINS, one not. From the allowed origin the page makes a player, plays an
// easy fruit level to a win by hints and has the play rated; a designer route (GET /stats,
// even with a designer key as Bearer) stays closed to it. From the other origin nothing
// gets through. Requests are watched, not routed: routing would let Playwright answer the
// preflights itself (common.mjs).
// Usage: LEVELFORGE_KEY=<designer key> node cors.mjs <server url> <screenshot dir> <allowed page url> <denied page url>
import { TIMEOUT, args, check, designerKey, expectedConsole, withPage } from "./common.mjs";

const { base, shots } = args("cors.mjs");
const [allowedPage, deniedPage] = process.argv.slice(4);
if (!allowedPage || !deniedPage) {
  console.error("usage: node cors.mjs <server url> <screenshot dir> <allowed page url> <denied page url>");
  process.exit(2);
}
const key = designerKey();
const SEED = 1;

// The errors Chromium logs for the calls CORS is meant to block: any from the denied page,
// only /stats from the allowed one.
let denying = false;
const blocked = (m) => denying || m.text().includes(`${base}/stats`) || m.location().url.startsWith(`${base}/stats`);
expectedConsole.push((m) => /has been blocked by CORS policy/.test(m.text()) && blocked(m));
expectedConsole.push((m) => m.text().startsWith("Failed to load resource: net::ERR_FAILED") && blocked(m));

async function runPage(page, url) {
  await page.goto(url);
  await page.evaluate(([api, seed, designer]) => run(api, seed, designer), [base, SEED, key]);
  await page.waitForSelector("body[data-done=true]", TIMEOUT);
  return JSON.parse(await page.locator("#result").textContent());
}

const isCorsFailure = (answer) => /^TypeError: /.test(answer?.error ?? "") && answer.status === undefined;

await withPage(base, async (page) => {
  const allowed = await runPage(page, allowedPage);
  const report = JSON.stringify(allowed);
  check(allowed.players?.status === 201 && typeof allowed.players.body?.player === "string", `allowed: POST /players answers 201 (${report})`);
  check(allowed.level?.status === 200, `allowed: the level is read (${report})`);
  check(allowed.won === true && allowed.check?.body?.status === "won", `allowed: won by hints (${report})`);
  check(allowed.plays?.status === 201 && allowed.plays.body?.rated === true, `allowed: the play is recorded and rated (${report})`);
  check(isCorsFailure(allowed.stats), `allowed: GET /stats with a designer key is blocked (${JSON.stringify(allowed.stats)})`);
  await page.screenshot({ path: `${shots}/cors-allowed.png`, fullPage: true });

  denying = true;
  const denied = await runPage(page, deniedPage);
  check(isCorsFailure(denied.players), `denied: POST /players is blocked (${JSON.stringify(denied.players)})`);
  check(isCorsFailure(denied.level), `denied: the level is blocked (${JSON.stringify(denied.level)})`);
  check(isCorsFailure(denied.stats), `denied: GET /stats is blocked (${JSON.stringify(denied.stats)})`);

  console.log(JSON.stringify({ allowed: { origin: allowed.origin, moves: allowed.moves, plays: allowed.plays?.status }, denied: denied.origin }));
}, { origins: [allowedPage, deniedPage], intercept: false });
