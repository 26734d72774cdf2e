// Drives the dashboard in Debian's headless Chromium: the page loads offline, the charts
// and previews render, clicking a level opens it. Writes two screenshots.
// Usage: node dashboard.mjs <server url> <screenshot dir>   (exit 1 with a reason on failure)
import { args, check, withPage } from "./common.mjs";

const { base, shots } = args("dashboard.mjs");

await withPage(base, async (page) => {
  await page.goto(`${base}/?game=skiddy&difficulty=hard`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30000 });
  check(await page.locator("#status").textContent() === "", "the page reported an error");
  check(await page.locator("#game").inputValue() === "skiddy", "the game picker shows skiddy");

  const count = (selector) => page.locator(selector).count();
  check(await count("#chart-par rect.bar") > 0, "par histogram has bars");
  check(await count("#chart-time rect.bar") === 6, "time chart has p50/p95/p99 of two series");
  check(await count("#chart-acceptance rect.bar") === 2, "acceptance chart has two bars");
  check(await count("#chart-solve rect.bar") > 0, "solve-rate chart has bars");
  check(await count("#chart-trend rect.bar") > 0, "solve rate by day has a bar for today");
  check(await count("#chart-rating circle.point") > 0, "rating scatter has points");
  const cards = await count("#grid .card");
  check(cards > 0, "the grid shows levels");
  await page.waitForFunction(
    () => [...document.querySelectorAll("#grid img")].every((i) => i.complete && i.naturalWidth > 0),
    null,
    { timeout: 30000 },
  );
  await page.screenshot({ path: `${shots}/dashboard.png`, fullPage: true });

  // A click on a level opens it large, with its solution and metrics.
  await page.locator("#grid .card").first().click();
  await page.waitForSelector("dialog#level[open]");
  await page.waitForFunction(() => {
    const image = document.querySelector("#level-preview");
    const solution = document.querySelector("#level-solution").textContent;
    return image.complete && image.naturalWidth > 0 && solution !== "…";
  }, null, { timeout: 30000 });
  const metrics = await page.locator("#level-metrics").textContent();
  check(metrics.includes("states"), `level metrics shown (${metrics.slice(0, 80)})`);
  check((await page.locator("#level-title").textContent()).startsWith("skiddy · hard"), "dialog title");
  await page.screenshot({ path: `${shots}/dashboard-level.png` });

  // A point of the rating scatter opens its level too: by mouse (the last point is drawn
  // on top of any it overlaps) and by keyboard.
  const points = page.locator("#chart-rating circle.point");
  await page.keyboard.press("Escape");
  await page.waitForSelector("dialog#level[open]", { state: "detached" });
  await points.last().click();
  await page.waitForSelector("dialog#level[open]");
  await page.keyboard.press("Escape");
  await page.waitForSelector("dialog#level[open]", { state: "detached" });
  await points.first().focus();
  await page.keyboard.press("Enter");
  await page.waitForSelector("dialog#level[open]");

  // "Harder than par says": the failed levels of par 7 sit about 300 above their par's
  // mean, those of par 8 about 200 (tests/api/dashboard.rs seeds the plays).
  await page.goto(`${base}/?game=skiddy&difficulty=hard&above_par_min=250`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 30000 });
  check(await page.locator("#above_par_min").inputValue() === "250", "the filter is kept in the URL");
  const harder = await page.locator("#grid .card").allTextContents();
  check(
    harder.length === 2 && harder.every((text) => / par 7/.test(text)),
    `above_par_min=250 shows the two failed par-7 levels (${harder.join(" | ")})`,
  );

  console.log(JSON.stringify({ cards, screenshots: [`${shots}/dashboard.png`, `${shots}/dashboard-level.png`] }));
});
