// The designer dashboard: plain DOM and SVG over the JSON API, no libraries, no build.
"use strict";

const SVG = "http://www.w3.org/2000/svg";
const $ = (selector) => document.querySelector(selector);
const PAGE = 24;

const view = { game: "", difficulty: "hard", next: null, levels: [], games: new Map() };
// The key signed in ({id, name, role}), or null on the sign-in screen.
const session = { key: null, gamesLoaded: false };

// Every call of the page: the answer's status and body (JSON, problem+json or text),
// whatever the status. The session cookie goes with every same-origin call; a 401 to a
// call that carried nothing else means the session is over (signed out elsewhere, expired,
// or its key revoked), so the sign-in screen comes back. Calls with their own
// Authorization (a player's plays) and the session's own routes answer 401 for other reasons.
async function request(url, { method = "GET", body, headers = {} } = {}) {
  const init = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.headers["content-type"] = "application/json";
    init.body = JSON.stringify(body);
  }
  const response = await fetch(url, init);
  const type = response.headers.get("content-type") || "";
  const answer = {
    ok: response.ok,
    status: response.status,
    body: type.includes("json") ? await response.json().catch(() => ({})) : await response.text(),
    retryAfter: response.headers.get("retry-after"),
  };
  const ownAuthorization = Object.keys(init.headers).some((name) => name.toLowerCase() === "authorization");
  if (answer.status === 401 && !ownAuthorization && url !== "/session" && session.key) {
    showSignIn(`You were signed out: ${problem(answer)}. Sign in again to go on.`);
  }
  return answer;
}

async function getJson(url) {
  const answer = await request(url);
  if (!answer.ok) throw new Error(answer.body.detail || `${url}: HTTP ${answer.status}`);
  return answer.body;
}

// A POST of JSON; the answer's status and body, whatever the status (problem+json on errors).
async function post(url, body, headers = {}) {
  return request(url, { method: "POST", body, headers });
}

function problem(answer) {
  const body = answer.body || {};
  const rule = body.rule ? ` (rule ${body.rule})` : "";
  const retry = answer.retryAfter ? `; try again in ${answer.retryAfter} s` : "";
  return `${body.detail || body.title || `HTTP ${answer.status}`}${rule}${retry}`;
}

function element(tag, attributes = {}, text) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function svgElement(tag, attributes = {}, text) {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, value);
  if (text !== undefined) node.textContent = text;
  return node;
}

function query(params) {
  const search = new URLSearchParams();
  for (const [name, value] of Object.entries(params)) {
    if (value !== "" && value !== null && value !== undefined) search.set(name, value);
  }
  return search.toString();
}

function filters() {
  const value = (id) => $(id).value.trim();
  return {
    par_min: value("#par_min"),
    par_max: value("#par_max"),
    rating_min: value("#rating_min"),
    rating_max: value("#rating_max"),
    above_par_min: value("#above_par_min"),
    prior_gap_min: value("#prior_gap_min"),
    sort: $("#sort_prior_gap").checked ? "prior_gap" : "",
  };
}

function percent(x) {
  return x === null || x === undefined ? "–" : `${(100 * x).toFixed(1)}%`;
}

function signed(x) {
  return `${x > 0 ? "+" : ""}${Math.round(x)}`;
}

function number(x, digits = 0) {
  return x === null || x === undefined ? "–" : Number(x).toFixed(digits);
}

// ---- charts ---------------------------------------------------------------------------

const W = 320, H = 160, M = { left: 44, right: 8, top: 8, bottom: 22 };
// The scatter spans the page: a wider canvas keeps its text and points at bar-chart size.
const WIDE = { width: 960, height: 240 };

function frame(container, yMax, width = W, height = H) {
  const svg = svgElement("svg", { viewBox: `0 0 ${width} ${height}`, role: "img" });
  svg.append(
    svgElement("line", { class: "axis", x1: M.left, y1: height - M.bottom, x2: width - M.right, y2: height - M.bottom }),
    svgElement("line", { class: "axis", x1: M.left, y1: M.top, x2: M.left, y2: height - M.bottom }),
    svgElement("text", { x: M.left - 4, y: M.top + 8, "text-anchor": "end" }, String(yMax)),
    svgElement("text", { x: M.left - 4, y: height - M.bottom, "text-anchor": "end" }, "0"),
  );
  container.replaceChildren(svg);
  return svg;
}

function empty(container, message, width = W) {
  const svg = svgElement("svg", { viewBox: `0 0 ${width} 40` });
  svg.append(svgElement("text", { class: "empty", x: 8, y: 24 }, message));
  container.replaceChildren(svg);
}

// Bars of (label, value) pairs; `alt` marks bars drawn in the lighter colour.
function barChart(container, bars, { format = (v) => String(v), yMax } = {}) {
  if (!bars.length) return empty(container, "no data yet");
  const top = yMax ?? Math.max(...bars.map((b) => b.value), 1);
  const svg = frame(container, format(top));
  const slot = (W - M.left - M.right) / bars.length;
  bars.forEach((bar, i) => {
    const height = ((H - M.top - M.bottom) * Math.min(bar.value, top)) / top;
    const x = M.left + i * slot + slot * 0.1;
    const rect = svgElement("rect", {
      class: bar.alt ? "bar alt" : "bar",
      x, y: H - M.bottom - height, width: slot * 0.8, height,
    });
    rect.append(svgElement("title", {}, `${bar.tip ?? bar.label}: ${format(bar.value)}`));
    svg.append(rect, svgElement("text", { x: x + slot * 0.4, y: H - 8, "text-anchor": "middle" }, bar.label));
  });
}

function scatter(container, points, onPick) {
  if (!points.length) return empty(container, "no rated levels among those shown: players' first plays rate them", WIDE.width);
  const xs = points.map((p) => p.x), ys = points.map((p) => p.y);
  const [x0, x1] = [Math.min(...xs) - 1, Math.max(...xs) + 1];
  const [y0, y1] = [Math.min(...ys) - 50, Math.max(...ys) + 50];
  const { width, height } = WIDE;
  const svg = frame(container, Math.round(y1), width, height);
  svg.querySelector("text:last-of-type").textContent = String(Math.round(y0));
  const px = (x) => M.left + ((width - M.left - M.right) * (x - x0)) / (x1 - x0);
  const py = (y) => height - M.bottom - ((height - M.top - M.bottom) * (y - y0)) / (y1 - y0);
  for (let par = Math.ceil(x0); par <= x1; par++) {
    svg.append(svgElement("text", { x: px(par), y: height - 8, "text-anchor": "middle" }, String(par)));
  }
  for (const point of points) {
    const dot = svgElement("circle", { class: "point", cx: px(point.x), cy: py(point.y), r: 4, tabindex: 0 });
    dot.append(svgElement("title", {}, point.title));
    dot.addEventListener("click", () => onPick(point.level));
    // Focusable points open with the keyboard too.
    dot.addEventListener("keydown", (event) => {
      if (event.key === "Enter" || event.key === " ") {
        event.preventDefault();
        onPick(point.level);
      }
    });
    svg.append(dot);
  }
}

// ---- the page -------------------------------------------------------------------------

function figure(label, value) {
  const box = element("div", { class: "figure" });
  box.append(element("b", {}, value), element("span", {}, label));
  return box;
}

function showStats(group) {
  const figures = $("#figures");
  if (!group) {
    figures.replaceChildren(figure("levels stored", "0"));
    for (const id of ["#chart-par", "#chart-time", "#chart-acceptance", "#chart-solve"]) empty($(id), "no levels stored yet");
    return;
  }
  figures.replaceChildren(
    figure("levels stored", String(group.levels)),
    figure("levels per candidate", percent(group.acceptance_rate)),
    figure("par p50 / p95", `${number(group.par.p50)} / ${number(group.par.p95)}`),
    figure("generate ms p95", number(group.generate_ms.p95)),
    figure("plays", String(group.plays.count)),
    figure("player solve rate", percent(group.plays.solve_rate)),
    figure("moves over par", number(group.plays.moves_over_par_mean, 2)),
    figure("rated levels", String(group.ratings.rated_levels)),
    figure("mean rating", number(group.ratings.mean)),
  );
  const histogram = group.par.histogram;
  barChart($("#chart-par"), histogram.map((b) => ({ label: String(b.par), value: b.levels })));
  const times = [];
  for (const [name, p] of [["gen", group.generate_ms], ["solve", group.solve_ms]]) {
    for (const q of ["p50", "p95", "p99"]) times.push({ label: q, tip: `${name} ${q}`, value: p[q] ?? 0, alt: name === "solve" });
  }
  barChart($("#chart-time"), times);
  barChart(
    $("#chart-acceptance"),
    [
      { label: "accepted", value: group.levels },
      { label: "candidates", value: group.candidates, alt: true },
    ],
  );
  const played = histogram.filter((b) => b.plays > 0);
  if (played.length) {
    barChart(
      $("#chart-solve"),
      played.map((b) => ({ label: String(b.par), value: b.solve_rate })),
      { format: percent, yMax: 1 },
    );
  } else {
    empty($("#chart-solve"), "no plays reported yet");
  }
}

// One bar per day with plays (GET /stats?since=...: the per-day rollups).
function showTrend(group) {
  const days = group?.trend ?? [];
  if (!days.length) return empty($("#chart-trend"), "no plays in the last 30 days");
  barChart(
    $("#chart-trend"),
    days.map((d, i) => ({
      label: i % 5 === 0 ? d.day.slice(5) : "",
      tip: `${d.day}: ${d.won} of ${d.plays} plays won`,
      value: d.solve_rate ?? 0,
    })),
    { format: percent, yMax: 1 },
  );
}

function card(level) {
  const button = element("button", { class: "card", type: "button", "data-seed": String(level.seed) });
  const image = element("img", { src: level.links.preview, alt: `level ${level.seed}`, loading: "lazy" });
  const rating = level.rating === null ? "unrated" : `rating ${Math.round(level.rating)}`;
  button.append(
    image,
    element("span", {}, `seed ${level.seed} · par ${level.par}`),
    element("span", {}, `${rating} · ${level.rated_plays} rated plays`),
  );
  button.addEventListener("click", () => openLevel(level));
  return button;
}

function showLevels() {
  $("#grid").replaceChildren(...view.levels.map(card));
  $("#grid-note").textContent = `${view.levels.length} shown, lowest par first`;
  $("#more").hidden = !view.next;
  const rated = view.levels.filter((l) => l.rating !== null);
  scatter(
    $("#chart-rating"),
    rated.map((l) => ({ x: l.par, y: l.rating, level: l, title: `seed ${l.seed}: par ${l.par}, rating ${Math.round(l.rating)}` })),
    openLevel,
  );
}

async function loadPage(url) {
  const page = await getJson(url);
  view.levels.push(...page.levels);
  view.next = page.next;
  showLevels();
}

async function refresh() {
  view.game = $("#game").value;
  view.difficulty = $("#difficulty").value;
  view.levels = [];
  view.next = null;
  $("#status").textContent = "";
  delete document.body.dataset.ready;
  history.replaceState(null, "", `?${query({ game: view.game, difficulty: view.difficulty, ...filters() })}`);
  try {
    const stats = await getJson(`/stats?${query({ game: view.game, difficulty: view.difficulty })}`);
    showStats(stats.groups[0]);
    const since = new Date(Date.now() - 29 * 86_400_000).toISOString().slice(0, 10);
    const recent = await getJson(`/stats?${query({ game: view.game, difficulty: view.difficulty, since })}`);
    showTrend(recent.groups[0]);
    // The server draws it; the session cookie goes with the image request.
    $("#chart-difficulty").src = `/difficulty.svg?${query({ game: view.game })}`;
    await loadPage(`/levels?${query({ game: view.game, difficulty: view.difficulty, limit: PAGE, ...filters() })}`);
  } catch (error) {
    if (session.key) $("#status").textContent = error.message;
  }
  // Ready means the dashboard is shown and drawn; a 401 on the way left the sign-in screen.
  if (session.key) document.body.dataset.ready = "true";
}

// Stores the next twelve seeds after the highest one shown (a pack request generates them).
async function generateMore() {
  const button = $("#generate");
  button.disabled = true;
  const from = view.levels.reduce((top, l) => Math.max(top, l.seed + 1), 1);
  try {
    await getJson(`/levels/${view.difficulty}?${query({ game: view.game, from, count: 12 })}`);
    await refresh();
  } catch (error) {
    $("#status").textContent = error.message;
  } finally {
    button.disabled = false;
  }
}

// ---- a collection draft -----------------------------------------------------------------

// Levels picked from browse or made in the editor, in order, for PUT /collections/{slug}.
// Each: { label, entry (a key, or a hand-made `level`), predicted (the prior, or null) }.
// Kept in the tab's sessionStorage, so that opening levels by other filters keeps it.
const DRAFT_STORAGE = "levelforge.draft";
const draft = { game: null, items: [] };

function loadDraft() {
  try {
    Object.assign(draft, JSON.parse(sessionStorage.getItem(DRAFT_STORAGE)) ?? {});
  } catch {
    sessionStorage.removeItem(DRAFT_STORAGE);
  }
}

// Adds an entry to the draft; a draft holds levels of one game.
function addToDraft(game, item) {
  if (draft.game && draft.game !== game) {
    return draftStatus("refused", `The draft is a ${draft.game} collection: publish or empty it first.`);
  }
  draft.game = game;
  draft.items.push(item);
  draftStatus("", `Added ${item.label}.`);
  showDraft();
}

// A stored level from browse, by its key.
function addStoredLevel(level) {
  addToDraft(level.game, {
    label: `${level.difficulty} · seed ${level.seed} · par ${level.par}`,
    entry: { difficulty: level.difficulty, seed: String(level.seed) },
    predicted: level.prior_rating ?? null,
  });
}

// An edited level that verified solvable, as the document /verify took.
function addEditedLevel(game, document, par) {
  addToDraft(game, { label: `edited level · par ${par}`, entry: { level: document }, predicted: null });
}

function draftButton(text, label, onClick) {
  const button = element("button", { type: "button", "aria-label": label }, text);
  button.addEventListener("click", onClick);
  return button;
}

function showDraft() {
  sessionStorage.setItem(DRAFT_STORAGE, JSON.stringify(draft));
  $("#draft-note").textContent = draft.items.length ? `${draft.items.length} levels of ${draft.game}` : "empty: add levels from their dialog";
  $("#draft-entries").replaceChildren(
    ...draft.items.map((item, i) => {
      const predicted = item.predicted === null ? "" : ` · predicted ${Math.round(item.predicted)}`;
      const move = (to) => () => {
        const [moved] = draft.items.splice(i, 1);
        draft.items.splice(to, 0, moved);
        showDraft();
      };
      const remove = () => {
        draft.items.splice(i, 1);
        if (!draft.items.length) draft.game = null;
        showDraft();
      };
      const row = element("li", { "data-entry": String(i + 1) });
      row.append(
        element("span", {}, `${item.label}${predicted}`),
        draftButton("↑", `Move entry ${i + 1} up`, move(Math.max(0, i - 1))),
        draftButton("↓", `Move entry ${i + 1} down`, move(Math.min(draft.items.length - 1, i + 1))),
        draftButton("✕", `Remove entry ${i + 1}`, remove),
      );
      return row;
    }),
  );
  $("#draft-publish").disabled = draft.items.length === 0;
  $("#draft-sort").disabled = draft.items.length < 2;
}

// Easiest first by prediction; levels without one keep their order, after the others.
function sortDraft() {
  const known = draft.items.filter((item) => item.predicted !== null).sort((a, b) => a.predicted - b.predicted);
  draft.items = [...known, ...draft.items.filter((item) => item.predicted === null)];
  showDraft();
}

function draftStatus(state, text, link) {
  const status = $("#draft-status");
  status.dataset.state = state;
  status.replaceChildren(text);
  if (link) status.append(" ", element("a", { href: link, target: "_blank" }, link));
}

// PUT /collections/{slug}: the server proves every entry; a refusal names the entry and rule.
async function publishDraft() {
  const slug = $("#draft-slug").value.trim();
  const title = $("#draft-title").value.trim();
  if (!slug || !title) return draftStatus("refused", "Give the collection a slug and a title.");
  const button = $("#draft-publish");
  button.disabled = true;
  draftStatus("", "Publishing…");
  const body = { title, game: draft.game, entries: draft.items.map((item) => item.entry) };
  try {
    const answer = await request(`/collections/${encodeURIComponent(slug)}`, { method: "PUT", body });
    if (answer.ok) draftStatus("published", `Published version ${answer.body.version} of ${answer.body.size} levels:`, `/collections/${slug}/v/${answer.body.version}`);
    else draftStatus("refused", `Not published: ${problem(answer)}`);
  } catch (error) {
    draftStatus("refused", `Not published: ${error.message}`);
  } finally {
    button.disabled = false;
  }
}

// ---- signing in ------------------------------------------------------------------------

// The sign-in screen, with `message` (why it came back, or why a key was refused). Whatever
// the last key showed is cleared, so the next person sees nothing of it.
function showSignIn(message = "") {
  session.key = null;
  if ($("#level").open) $("#level").close();
  $("#pick").hidden = true;
  $("#account").hidden = true;
  $("#dashboard").hidden = true;
  $("#signin-screen").hidden = false;
  view.levels = [];
  view.next = null;
  draft.items = [];
  draft.game = null;
  showDraft();
  for (const id of ["#figures", "#grid", "#grid-note", "#status", "#draft-status"]) $(id).replaceChildren();
  for (const chart of document.querySelectorAll(".chart")) chart.replaceChildren();
  $("#chart-difficulty").removeAttribute("src");
  signInError(message);
  delete document.body.dataset.ready;
  document.body.dataset.signin = "true";
  $("#signin-key").focus();
}

function signInError(message) {
  $("#signin-error").textContent = message;
  $("#signin-key").setAttribute("aria-invalid", String(message !== ""));
}

// POST /session with a key: the server answers with the session cookie (HttpOnly, so this
// page never holds it).
function openSession(key) {
  return request("/session", { method: "POST", body: { key } });
}

// GET /session: the dashboard for the key it names, or the sign-in screen.
async function enter(message = "") {
  let answer;
  try {
    answer = await request("/session");
  } catch (error) {
    return showSignIn(`The server could not be reached: ${error.message}`);
  }
  if (!answer.ok) return showSignIn(answer.status === 401 ? message : `Could not check the sign-in: ${problem(answer)}`);
  const key = answer.body.key;
  session.key = key;
  $("#account-name").textContent = key.name;
  $("#account-role").textContent = `(${key.role})`;
  const ends = answer.body.expires_at ? `until ${new Date(answer.body.expires_at).toLocaleString()}` : "until you sign out";
  $("#account").title = `Key ${key.id}; this sign-in lasts ${ends}`;
  signInError("");
  delete document.body.dataset.signin;
  $("#signin-screen").hidden = true;
  $("#pick").hidden = false;
  $("#account").hidden = false;
  $("#dashboard").hidden = false;
  await loadGames();
  await refresh();
}

async function signIn(event) {
  event.preventDefault();
  const input = $("#signin-key");
  const key = input.value.trim();
  if (!key) return signInError("Enter your designer key.");
  const button = $("#signin button[type=submit]");
  button.disabled = true;
  signInError("");
  try {
    const answer = await openSession(key);
    if (answer.ok) {
      input.value = "";
      await enter();
      // The button that had the focus is gone with the screen: keyboard users go on from the picker.
      if (session.key) $("#game").focus();
    } else {
      signInError(`${answer.status === 401 ? "The key was not accepted" : "Could not sign in"}: ${problem(answer)}`);
      input.select();
    }
  } catch (error) {
    signInError(`The server could not be reached: ${error.message}`);
  } finally {
    button.disabled = false;
  }
}

async function signOut() {
  const button = $("#signout");
  button.disabled = true;
  try {
    const answer = await request("/session", { method: "DELETE" });
    // 401: the session had already ended; either way no one is signed in now.
    if (answer.ok || answer.status === 401) showSignIn("You are signed out.");
    else $("#status").textContent = `Could not sign out: ${problem(answer)}`;
  } catch (error) {
    $("#status").textContent = `Could not sign out: ${error.message}`;
  } finally {
    button.disabled = false;
  }
}

// The one-time link the server prints on its first start: /#key=lfk_... The key leaves the
// address bar (and so the history) before anything else happens with it.
function keyFromLink() {
  const key = new URLSearchParams(location.hash.slice(1)).get("key");
  if (key !== null) history.replaceState(null, "", `${location.pathname}${location.search}`);
  return key;
}

// ---- start ---------------------------------------------------------------------------------

async function loadGames() {
  if (session.gamesLoaded) return;
  const wanted = new URLSearchParams(location.search);
  try {
    const games = await getJson("/games");
    for (const game of games.games) view.games.set(game.name, game);
    $("#game").replaceChildren(...games.games.map((g) => element("option", { value: g.name }, g.title)));
    $("#game").value = wanted.get("game") || games.default;
    session.gamesLoaded = true;
  } catch (error) {
    $("#status").textContent = error.message;
  }
}

async function start() {
  const wanted = new URLSearchParams(location.search);
  for (const name of ["difficulty", "par_min", "par_max", "rating_min", "rating_max", "above_par_min", "prior_gap_min"]) {
    if (wanted.has(name)) $(`#${name}`).value = wanted.get(name);
  }
  $("#sort_prior_gap").checked = wanted.get("sort") === "prior_gap";
  $("#pick").addEventListener("submit", (event) => {
    event.preventDefault();
    refresh();
  });
  $("#game").addEventListener("change", refresh);
  $("#difficulty").addEventListener("change", refresh);
  $("#more").addEventListener("click", () => {
    if (view.next) loadPage(view.next).catch((error) => session.key && ($("#status").textContent = error.message));
  });
  $("#generate").addEventListener("click", generateMore);
  $("#draft-sort").addEventListener("click", sortDraft);
  $("#draft-publish").addEventListener("click", publishDraft);
  loadDraft();
  showDraft();
  $("#signin").addEventListener("submit", signIn);
  $("#signout").addEventListener("click", signOut);
  // A link opened in a tab already on the dashboard changes only the hash: no reload.
  window.addEventListener("hashchange", () => {
    const key = keyFromLink();
    if (key) signInByLink(key);
  });
  const key = keyFromLink();
  if (key) await signInByLink(key);
  else await enter();
}

async function signInByLink(key) {
  const answer = await openSession(key).catch((error) => ({ ok: false, status: 0, body: { detail: error.message } }));
  if (!answer.ok) return showSignIn(`The sign-in link did not work: ${problem(answer)}`);
  await enter();
}

start();
