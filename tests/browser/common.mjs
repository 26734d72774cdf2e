// What every browser script shares: Debian's headless Chromium, offline but for the server
// under test, signing in through the dashboard's own screen, and a list of problems that
// makes the script exit 1 with the reasons. A console error fails the script, and so any
// Content-Security-Policy violation ("Refused to ...").
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

// A designer key for the server under test, from the environment (never the command line,
// where other users of the machine could read it).
export function designerKey() {
  const key = process.env.LEVELFORGE_KEY;
  if (!key) {
    console.error("LEVELFORGE_KEY must hold a designer key of the server under test");
    process.exit(2);
  }
  return key;
}

export const problems = [];
// HTTP statuses the page under test answers for itself (the browser still logs them).
export const handledStatuses = new Set();
// Console errors a script provokes on purpose (e.g. a fetch CORS must block): predicates
// over Playwright's ConsoleMessage.
export const expectedConsole = [];
export const check = (ok, what) => ok || problems.push(what);
export const TIMEOUT = { timeout: 30000 };

// Signs in through the sign-in screen, as a designer would: the key typed, "Sign in"
// clicked, then the dashboard drawn. `path` is the page to open first.
export async function signIn(page, base, key, path = "/") {
  await page.goto(`${base}${path}`);
  await page.waitForSelector("body[data-signin=true]", TIMEOUT);
  await page.locator("#signin-key").fill(key);
  await page.locator("#signin button[type=submit]").click();
  await page.waitForSelector("body[data-ready=true]", TIMEOUT);
}

// A page of a fresh browser; `run(page)` drives it, then the browser closes and the
// script exits 1 if anything went wrong. `origins` are other origins the page may reach
// besides `base`'s (all on loopback). `intercept: false` watches requests instead of
// routing them: while Playwright routes requests, Chromium's CORS preflights never reach
// the server (Playwright answers them itself, allowing everything), so a CORS test must not
// route; there no host but 127.0.0.1 resolves, which keeps the browser offline all the same.
export async function withPage(base, run, { origins = [], intercept = true } = {}) {
  const browser = await chromium.launch({
    executablePath: process.env.CHROMIUM || "/usr/bin/chromium",
    args: [
      "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
      "--disable-background-networking", "--disable-component-update", "--disable-sync",
      ...(intercept ? [] : ["--host-resolver-rules=MAP * ~NOTFOUND, EXCLUDE 127.0.0.1"]),
    ],
  });
  try {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on("pageerror", (error) => problems.push(`page error: ${error.message}`));
    // Every Content-Security-Policy violation, whatever Chromium's console calls it.
    await page.exposeFunction("reportCspViolation", (what) => problems.push(`CSP violation: ${what}`));
    await page.addInitScript(() =>
      document.addEventListener("securitypolicyviolation", (event) =>
        window.reportCspViolation(`${event.violatedDirective} blocked ${event.blockedURI || "inline"} at ${event.sourceFile}:${event.lineNumber}`),
      ),
    );
    page.on("console", (m) => {
      const status = /status of (\d+)/.exec(m.text())?.[1];
      if (m.type() !== "error" || handledStatuses.has(Number(status))) return;
      if (!expectedConsole.some((expected) => expected(m))) problems.push(`console: ${m.text()}`);
    });
    // Offline: any request that leaves the server under test (and the origins named) is a failure.
    const allowed = [base, ...origins].map((url) => `${new URL(url).origin}/`);
    const inside = (url) => allowed.some((origin) => url.startsWith(origin)) || url.startsWith("data:");
    if (intercept) {
      await page.route("**/*", (route) => {
        const url = route.request().url();
        if (inside(url)) return route.continue();
        problems.push(`request to another host: ${url}`);
        return route.abort();
      });
    } else {
      page.on("request", (request) => inside(request.url()) || problems.push(`request to another host: ${request.url()}`));
    }
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
