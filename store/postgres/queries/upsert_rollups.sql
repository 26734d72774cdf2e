-- Adds one batch of rollup rows (store/core/src/rollups.rs) to the five tables, all in
-- shard $1: one statement, one round trip. Each table's rows come as one array per column.
WITH groups AS (
    INSERT INTO stats_groups (game, difficulty, version, shard, levels, candidates,
        par_sum, states_sum, states_max, solutions_unique, solutions_max)
    SELECT game, difficulty, version, $1, levels, candidates, par_sum, states_sum,
        states_max, solutions_unique, solutions_max
    FROM UNNEST($2::text[], $3::text[], $4::int4[], $5::int8[], $6::int8[],
        $7::int8[], $8::int8[], $9::int8[], $10::int8[], $11::int8[])
        AS g(game, difficulty, version, levels, candidates, par_sum, states_sum,
            states_max, solutions_unique, solutions_max)
    ON CONFLICT (game, difficulty, version, shard) DO UPDATE SET
        levels = stats_groups.levels + excluded.levels,
        candidates = stats_groups.candidates + excluded.candidates,
        par_sum = stats_groups.par_sum + excluded.par_sum,
        states_sum = stats_groups.states_sum + excluded.states_sum,
        solutions_unique = stats_groups.solutions_unique + excluded.solutions_unique,
        states_max = GREATEST(stats_groups.states_max, excluded.states_max),
        solutions_max = GREATEST(stats_groups.solutions_max, excluded.solutions_max)
), pars AS (
    INSERT INTO stats_pars (game, difficulty, version, par, shard, levels,
        rated_levels, rating_micros, plays, won, moves_over_par)
    SELECT game, difficulty, version, par, $1, levels, rated_levels, rating_micros,
        plays, won, moves_over_par
    FROM UNNEST($12::text[], $13::text[], $14::int4[], $15::int4[], $16::int8[],
        $17::int8[], $18::int8[], $19::int8[], $20::int8[], $21::int8[])
        AS p(game, difficulty, version, par, levels, rated_levels, rating_micros,
            plays, won, moves_over_par)
    ON CONFLICT (game, difficulty, version, par, shard) DO UPDATE SET
        levels = stats_pars.levels + excluded.levels,
        rated_levels = stats_pars.rated_levels + excluded.rated_levels,
        rating_micros = stats_pars.rating_micros + excluded.rating_micros,
        plays = stats_pars.plays + excluded.plays,
        won = stats_pars.won + excluded.won,
        moves_over_par = stats_pars.moves_over_par + excluded.moves_over_par
), metrics AS (
    INSERT INTO stats_metrics (game, difficulty, version, metric, levels, total, max)
    SELECT * FROM UNNEST($22::text[], $23::text[], $24::int4[], $25::text[],
        $26::int8[], $27::float8[], $28::float8[])
    ON CONFLICT (game, difficulty, version, metric) DO UPDATE SET
        levels = stats_metrics.levels + excluded.levels,
        total = stats_metrics.total + excluded.total,
        max = GREATEST(stats_metrics.max, excluded.max)
), days AS (
    INSERT INTO stats_days (day, game, difficulty, version, shard, plays, won,
        moves_over_par)
    SELECT day, game, difficulty, version, $1, plays, won, moves_over_par
    FROM UNNEST($29::text[], $30::text[], $31::text[], $32::int4[], $33::int8[],
        $34::int8[], $35::int8[])
        AS d(day, game, difficulty, version, plays, won, moves_over_par)
    ON CONFLICT (day, game, difficulty, version, shard) DO UPDATE SET
        plays = stats_days.plays + excluded.plays,
        won = stats_days.won + excluded.won,
        moves_over_par = stats_days.moves_over_par + excluded.moves_over_par
)
INSERT INTO stats_sketches (measure, day, game, difficulty, version, bucket, count)
SELECT * FROM UNNEST($36::text[], $37::text[], $38::text[], $39::text[], $40::int4[],
    $41::int4[], $42::int8[])
ON CONFLICT (measure, day, game, difficulty, version, bucket) DO UPDATE SET
    count = stats_sketches.count + excluded.count
