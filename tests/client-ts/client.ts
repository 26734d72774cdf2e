// A game client written against the types openapi-typescript generates from openapi.yaml
// and run against the real server: `node dist/client.js <base URL>`, with a designer key
// in LEVELFORGE_DESIGNER_KEY for the designer routes it calls (`/stats`, `/session`,
// `PUT` and `DELETE /collections/{slug}`).
// Compiled with `tsc --strict` first, so a type that does not fit the contract fails the
// build. Every answer is asserted; the first failure exits non-zero.
//
// The token flow of a game: `POST /players` makes the player and its token, every play is
// sent with `Authorization: Bearer <token>` (and so rated), `GET /players/me` shows the
// ratings, `DELETE /players/me` erases the player and revokes the token.

import createClient from "openapi-fetch";
import type { components, paths } from "./generated/api.js";

type Schemas = components["schemas"];
type Level = Schemas["Level"];
type Moves = Schemas["Moves"];
type Difficulty = Schemas["Difficulty"];
type GameName = Schemas["GameName"];

const baseArgument = process.argv[2];
if (!baseArgument) {
  throw new Error("usage: node dist/client.js <base URL>");
}
const base: string = baseArgument;
const designerKey = process.env["LEVELFORGE_DESIGNER_KEY"];
if (!designerKey) {
  throw new Error("LEVELFORGE_DESIGNER_KEY must hold a designer key (`levelforge keys create`)");
}
/** Anonymous: levels, checks, new players. */
const client = createClient<paths>({ baseUrl: base });
/** The designer routes, with the key as Bearer. */
const designer = createClient<paths>({
  baseUrl: base,
  headers: { Authorization: `Bearer ${designerKey}` },
});
const GAMES: GameName[] = ["fruit", "skiddy", "hashi", "tetropica", "hopper"];
const TIERS: Difficulty[] = ["easy", "medium", "hard", "expert"];
/** The largest seed: a JS number cannot hold it, so seeds travel as strings in URLs. */
const MAX_SEED = "18446744073709551615";
let checks = 0;

function assert(condition: unknown, what: string): asserts condition {
  if (!condition) {
    throw new Error(`assertion failed: ${what}`);
  }
  checks += 1;
}

/** What the level's own fields say, narrowed by `game`: the checks differ per game. */
function describe(level: Level): string {
  switch (level.game) {
    case "fruit":
      assert(/^[UDLR]+$/.test(level.solution), "fruit solution is U/D/L/R");
      assert(level.metrics.pairs >= 1, "fruit has pairs");
      assert(
        level.anteaters.every((a) => ["U", "D", "L", "R"].includes(a.dir)),
        "anteaters face a direction",
      );
      return `${level.metrics.pairs} pairs, ${level.one_ways.length} one-ways`;
    case "skiddy":
      assert(/^[UDLR]+$/.test(level.solution), "skiddy solution is U/D/L/R");
      assert(typeof level.metrics.perfect === "boolean", "skiddy says perfect");
      return `${level.metrics.skiddies} skiddies, combo_par ${level.metrics.combo_par}`;
    case "hashi":
      assert(level.width === level.height, "hashi boards are square");
      assert(
        level.solution.every((link) => link.length >= 3 && link.every((p) => p.length === 2)),
        "hashi links are point lists",
      );
      return `${level.solution.length} links, technique ${level.metrics.technique}`;
    case "tetropica":
      assert(level.solution.length === level.par, "one placement per piece of par");
      assert(
        level.solution.every((p) => level.pieces.includes(p.piece) && p.cells.length === 4),
        "placements use held pieces, four cells each",
      );
      return `hand ${level.pieces}, min_pieces ${level.metrics.min_pieces}`;
    case "hopper":
      assert(level.stars.length === level.metrics.stars, "hopper stars match the metrics");
      return `${level.metrics.stars} stars, ${level.metrics.grass} grass`;
  }
}

/** A move list that breaks a rule of the game, and the rule id the 422 must name. */
function brokenMoves(game: GameName): [Moves, string] {
  switch (game) {
    case "hashi":
      return [[[[0, 0], [1, 0]]], "hashi.link_length"];
    case "tetropica":
      return [[{ piece: "X", cells: [[0, 0], [1, 0], [2, 0], [3, 0]] }], "move.piece"];
    default:
      return ["UX", "moves.letters"];
  }
}

type Client = ReturnType<typeof createClient<paths>>;

/** A new player (`POST /players`) and a client that sends its token. */
async function newPlayer(): Promise<{ id: string; token: string; client: Client }> {
  const made = await client.POST("/players");
  assert(made.response.status === 201, `POST /players: 201 (got ${made.response.status})`);
  assert(made.data !== undefined, "a new player");
  const { player, token } = made.data;
  assert(token.startsWith("lfp_") && token.includes(player), "a player token names its player");
  assert(made.response.headers.get("cache-control") === "no-store", "a token is never cached");
  const player_client = createClient<paths>({
    baseUrl: base,
    headers: { Authorization: `Bearer ${token}` },
  });
  return { id: player, token, client: player_client };
}

async function playLevel(
  player: Client,
  game: GameName,
  difficulty: Difficulty,
  seed: string,
): Promise<Level> {
  const path = { difficulty, seed };
  const query = { game };
  const got = await client.GET("/levels/{difficulty}/{seed}", { params: { path, query } });
  assert(got.response.status === 200, `${game} ${difficulty} ${seed}: 200 (got ${got.response.status})`);
  const level = got.data;
  assert(level !== undefined, "a level body");
  assert(level.game === game && level.difficulty === difficulty, "the level of the key asked");
  assert(level.metrics.solution_count >= 1, "a served level has a solution");
  const said = describe(level);

  const check = await client.POST("/levels/{difficulty}/{seed}/check", {
    params: { path, query },
    body: { moves: level.solution },
  });
  assert(check.data !== undefined, `${game}: check answers 200 (got ${check.response.status})`);
  assert(check.data.status === "won", `${game}: its own solution wins`);
  assert(check.data.moves_used === level.par, `${game}: in par moves`);
  assert(check.data.medals.includes("par"), `${game}: earns the par medal`);

  // The player's play, by its token: its first of the level, so rated.
  const play = await player.POST("/levels/{difficulty}/{seed}/plays", {
    params: { path, query },
    body: { solved: true, moves: level.solution, time_ms: 4200 },
  });
  assert(play.response.status === 201, `${game}: play stored (got ${play.response.status})`);
  assert(play.data !== undefined, "a play body");
  assert(play.data.verified && play.data.solved_claimed, `${game}: the claim is verified`);
  assert(play.data.rated && play.data.player_rating !== undefined, `${game}: first play is rated`);
  assert(play.data.id >= 1, "a play id");
  // Without a token: stored, anonymous and unrated.
  const anonymous = await client.POST("/levels/{difficulty}/{seed}/plays", {
    params: { path, query },
    body: { solved: true, moves: level.solution },
  });
  assert(anonymous.response.status === 201, `${game}: an anonymous play is stored (got ${anonymous.response.status})`);
  assert(anonymous.data?.rated === false, `${game}: an anonymous play is not rated`);
  assert(anonymous.data.player_rating === undefined, `${game}: and moves no player's rating`);

  const [moves, rule] = brokenMoves(game);
  const broken = await client.POST("/levels/{difficulty}/{seed}/check", {
    params: { path, query },
    body: { moves },
  });
  assert(broken.response.status === 422, `${game}: a broken move list is 422`);
  assert(broken.error?.rule === rule, `${game}: the 422 names ${rule} (got ${broken.error?.rule})`);
  assert(
    broken.response.headers.get("content-type") === "application/problem+json",
    "problems are problem+json",
  );
  console.log(`${game} ${difficulty} seed ${seed}: par ${level.par}, ${said}; won, play ${play.data.id}`);
  return level;
}

async function largestSeed(): Promise<void> {
  // The URL carries the seed as a string: nothing is rounded on the way to the server.
  const path = { difficulty: "easy" as const, seed: MAX_SEED };
  const query = { game: "fruit" as const };
  const got = await client.GET("/levels/{difficulty}/{seed}", {
    params: { path, query },
    parseAs: "text",
  });
  assert(got.response.status === 200, "the largest seed is served");
  const text = got.data;
  assert(typeof text === "string", "raw level text");
  // The bytes hold every digit; JSON.parse rounds the number, so the client keys by the URL.
  assert(text.includes(`"seed":${MAX_SEED},`), "the document carries the exact seed");
  const parsed = JSON.parse(text) as Level;
  assert(BigInt(parsed.seed) !== BigInt(MAX_SEED), "JSON.parse cannot hold it (as documented)");
  assert(parsed.seed === Number(MAX_SEED), "it rounds to the nearest double");
  const check = await client.POST("/levels/{difficulty}/{seed}/check", {
    params: { path, query },
    body: { moves: parsed.solution },
  });
  assert(check.data?.status === "won", "the largest seed's level is checked by its URL");
  const pack = await client.GET("/levels/{difficulty}", {
    params: { path: { difficulty: "easy" }, query: { game: "fruit", from: MAX_SEED, count: 1 } },
    parseAs: "text",
  });
  assert(pack.response.status === 200 && pack.data === `[${text}]`, "a pack at the largest seed");
  const past = await client.GET("/levels/{difficulty}", {
    params: { path: { difficulty: "easy" }, query: { game: "fruit", from: MAX_SEED, count: 2 } },
  });
  assert(past.response.status === 400 && past.error?.status === 400, "a pack past it is 400");
  console.log(`seed ${MAX_SEED}: served, checked and packed by its URL; JSON.parse gives ${parsed.seed}`);
}

/** The designer routes: a key opens them, nothing else does. */
async function designerRoutes(playerToken: string): Promise<void> {
  const none = await client.GET("/stats", {});
  assert(none.response.status === 401 && none.error?.status === 401, "/stats without a key is 401");
  const challenge = none.response.headers.get("www-authenticate") ?? "";
  assert(challenge.startsWith('Bearer realm="levelforge"'), `a 401 names the scheme (${challenge})`);
  const asPlayer = await client.GET("/stats", {
    headers: { Authorization: `Bearer ${playerToken}` },
  });
  assert(asPlayer.response.status === 403, "a player token on /stats is 403");
  const session = await designer.GET("/session");
  assert(session.data !== undefined, `GET /session with the key (got ${session.response.status})`);
  assert(session.data.key.role === "designer", "the key is a designer's");
  assert(session.data.expires_at === null, "a key made without --expires-days does not expire");
  console.log(`designer key ${session.data.key.id} (${session.data.key.name}): 401 without it, 403 for a player`);
}

/** `GET /players/me`: one rated play per level, in every game; then the player is erased. */
async function ratingsAndErasure(player: Client): Promise<void> {
  const me = await player.GET("/players/me");
  const profile = me.data;
  assert(profile !== undefined, `GET /players/me (got ${me.response.status})`);
  for (const game of GAMES) {
    const rating = profile.ratings[game];
    assert(rating !== undefined, `${game}: the player is rated`);
    assert(rating.plays === TIERS.length, `${game}: one rated play per tier (got ${rating.plays})`);
    assert(rating.rating > 1500 && rating.deviation < 350, `${game}: winning raised the rating`);
  }
  const summary = GAMES.map((g) => `${g} ${profile.ratings[g]?.rating}`).join(", ");
  const anonymous = await client.GET("/players/me");
  assert(anonymous.response.status === 401, "/players/me without a token is 401");
  const erased = await player.DELETE("/players/me");
  assert(erased.response.status === 204, `DELETE /players/me: 204 (got ${erased.response.status})`);
  const after = await player.GET("/players/me");
  assert(after.response.status === 401 && after.error?.status === 401, "an erased player's token is 401");
  console.log(`player ${profile.player}: ${summary}; erased, its token refused`);
}

/** Collections: a designer publishes (a stored level and a hand-made one), anyone reads the
 *  manifest and its levels, and a player plays them in the order the progress names. */
async function collections(): Promise<void> {
  const slug = "ts-client";
  const handMade = {
    game: "fruit",
    width: 6,
    height: 3,
    grid: ["######", "#a..a#", "######"],
    one_ways: [],
    anteaters: [],
  };
  const entries = [{ difficulty: "easy" as Difficulty, seed: "1" }, { level: handMade }];
  const refused = await client.PUT("/collections/{slug}", {
    params: { path: { slug } },
    body: { title: "From TypeScript", game: "fruit", entries },
  });
  assert(refused.response.status === 401, `PUT /collections without a key is 401 (got ${refused.response.status})`);
  const published = await designer.PUT("/collections/{slug}", {
    params: { path: { slug } },
    body: { title: "From TypeScript", game: "fruit", entries },
  });
  assert(published.data !== undefined, `PUT /collections: 201 (got ${published.response.status})`);
  const manifest = published.data;
  assert(manifest.size === 2 && manifest.entries[1]?.difficulty === "custom", "the hand-made level is custom");
  const listed = await client.GET("/collections");
  assert(listed.data?.collections.some((c) => c.slug === slug) === true, "the collection is listed");
  const version = String(manifest.version);
  const player = await newPlayer();
  for (const entry of manifest.entries) {
    const path = { slug, version, n: String(entry.n) };
    const level = await client.GET("/collections/{slug}/v/{version}/{n}", { params: { path } });
    assert(level.data !== undefined, `entry ${entry.n}: its level (got ${level.response.status})`);
    const progress = await player.client.GET("/players/me/collections/{slug}", { params: { path: { slug } } });
    assert(progress.data?.next === entry.n, `entry ${entry.n} is next`);
    const play = await player.client.POST("/levels/{difficulty}/{seed}/plays", {
      params: { path: { difficulty: entry.difficulty, seed: String(entry.seed) }, query: { game: "fruit" } },
      body: { solved: true, moves: level.data.solution },
    });
    assert(play.data?.verified === true, `entry ${entry.n}: played to a win`);
  }
  const done = await player.client.GET("/players/me/collections/{slug}", { params: { path: { slug } } });
  assert(done.data?.next === null, "every entry played");
  const unpublished = await designer.DELETE("/collections/{slug}", { params: { path: { slug } } });
  assert(unpublished.response.status === 204, "DELETE /collections: 204");
  const kept = await client.GET("/collections/{slug}/v/{version}", { params: { path: { slug, version } } });
  assert(kept.data?.version === manifest.version, "an unpublished version stays readable");
  console.log(`collection ${slug} v${version}: published, read, played in order, unpublished`);
}

async function main(): Promise<void> {
  const player = await newPlayer();
  await designerRoutes(player.token);
  for (const game of GAMES) {
    for (const [i, difficulty] of TIERS.entries()) {
      await playLevel(player.client, game, difficulty, String(i + 1));
    }
    const stats = await designer.GET("/stats", { params: { query: { game } } });
    assert(stats.data !== undefined, `${game}: /stats answers`);
    const groups = typeof stats.data === "string" ? [] : stats.data.groups;
    assert(groups.length === TIERS.length, `${game}: one stats group per tier`);
    for (const group of groups) {
      assert(group.game === game && group.levels >= 1, `${game}: stats count the level`);
      assert(group.plays.count >= 2 && group.plays.won >= 2, `${game}: stats count the plays`);
    }
  }
  await ratingsAndErasure(player.client);
  const games = await client.GET("/games");
  assert(games.data !== undefined, "/games answers");
  for (const game of GAMES) {
    const listed = games.data.games.find((g) => g.name === game);
    assert(listed !== undefined && listed.tiers.length === TIERS.length, `/games lists ${game}`);
  }
  await largestSeed();
  await collections();
  const missing = await client.GET("/levels/{difficulty}/{seed}", {
    params: { path: { difficulty: "easy", seed: "1" }, query: { game: "nope" as GameName } },
  });
  assert(missing.response.status === 404 && missing.error?.status === 404, "unknown game is 404");
  console.log(`client: ${checks} checks passed`);
}

main().catch((e: unknown) => {
  console.error(e instanceof Error ? e.message : e);
  process.exit(1);
});
