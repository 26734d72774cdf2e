// What every browser script shares: Debian's headless Chromium, offline but for the server
// under test, and a list of problems that makes the script exit 1 with the reasons.
import { chromium } from "playwright-core";
import { mkdirSync } from "node:fs";

export function args(usage) {
  const [base, shots] = process.argv.slice(2);
  if (!base || !shots) {
    console.error(`usage: node ${usage} <server url> <screenshot dir>`);
    process.exit(2);
  }
  mkdirSync(shots, { recursive: true });
  return { base, shots };
}

export const problems = [];
// HTTP statuses the page under test answers for itself (the browser still logs them).
export const handledStatuses = new Set();
export const check = (ok, what) => ok || problems.push(what);

// A page of a fresh browser; `run(page)` drives it, then the browser closes and the
// script exits 1 if anything went wrong.
export async function withPage(base, run) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    page.on("console", (m) => {
      const status = /status of (\d+)/.exec(m.text())?.[1];
      if (m.type() === "error" && !handledStatuses.has(Number(status))) problems.push(`console: ${m.text()}`);
    });
    // Offline: any request that leaves the server under test is a failure.
    const origin = new URL(base).origin;
    await page.route("**/*", (route) => {
      const url = route.request().url();
      if (url.startsWith(origin) || url.startsWith("data:")) return route.continue();
      problems.push(`request to another host: ${url}`);
      return route.abort();
    });
    await run(page);
  } catch (error) {
    problems.push(error.stack || String(error));
  } finally {
    await browser.close();
  }
  if (problems.length) {
    console.error(problems.join("\n"));
    process.exit(1);
  }
}
