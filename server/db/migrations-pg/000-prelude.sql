-- Runs before the first migration on PostgreSQL: what SQLite's connection registers in JavaScript, as SQL.

-- Case-insensitive text for the columns SQLite declares COLLATE NOCASE (user logins, mail addresses): equality,
-- uniqueness and LIKE ignore case; under LC_CTYPE C only ASCII letters fold, as in SQLite. Trusted extension.
CREATE EXTENSION IF NOT EXISTS citext;

-- Great-circle distance in kilometres (haversine), for the venue geolocation filter (SQLite: a JS function).
CREATE OR REPLACE FUNCTION evt_distance_km(lat1 double precision, lng1 double precision, lat2 double precision, lng2 double precision)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT 6371.0088 * 2 * asin(least(1, sqrt(
    sin(radians(lat2 - lat1) / 2) ^ 2 + cos(radians(lat1)) * cos(radians(lat2)) * sin(radians(lng2 - lng1) / 2) ^ 2)))
$$;

-- SQLite's round(x, n) takes a REAL; PostgreSQL's only a numeric.
CREATE OR REPLACE FUNCTION round(x double precision, n integer)
RETURNS double precision LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT round(x::numeric, n)::double precision $$;

-- SQLite's comparisons are integers, so the code counts with SUM(a = b); PostgreSQL's are booleans. This
-- aggregate counts the true ones (NULL when there are no non-NULL inputs, as SQLite's SUM).
CREATE OR REPLACE FUNCTION evt_sum_bool(acc bigint, v boolean) RETURNS bigint LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT CASE WHEN v IS NULL THEN acc ELSE coalesce(acc, 0) + v::int END
$$;
CREATE OR REPLACE AGGREGATE sum(boolean) (SFUNC = evt_sum_bool, STYPE = bigint);

-- SQLite's datetime(time [, modifier]) as `YYYY-MM-DD HH:MM:SS` UTC, for the modifiers written here ('now',
-- '+1 day', '-120 days', '-3 hours': anything PostgreSQL reads as an interval).
CREATE OR REPLACE FUNCTION datetime(t text, modifier text DEFAULT NULL) RETURNS text LANGUAGE sql STABLE AS $$
  SELECT to_char((CASE WHEN t = 'now' THEN (now() AT TIME ZONE 'UTC') ELSE t::timestamp END)
                 + coalesce(modifier::interval, interval '0'), 'YYYY-MM-DD HH24:MI:SS')
$$;

-- SQLite's hex() of a blob: upper-case hexadecimal.
CREATE OR REPLACE FUNCTION hex(b bytea) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$ SELECT upper(encode(b, 'hex')) $$;
