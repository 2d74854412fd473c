-- Page views and public API reads. No raw IP address is ever stored: `visitor` is a hash of the address and
-- user agent under that day's random salt, and the salt is deleted once its day is over.
CREATE TABLE analytics_hits (
  id INTEGER PRIMARY KEY,
  -- UTC instant 'YYYY-MM-DD HH:MM:SS'
  ts TEXT NOT NULL,
  -- site-local calendar day 'YYYY-MM-DD' (ranges and daily series are in the site's time zone)
  day TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('page', 'api')),
  path TEXT NOT NULL,
  post_id INTEGER NOT NULL DEFAULT 0,
  referrer_host TEXT NOT NULL DEFAULT '',
  visitor TEXT NOT NULL
) STRICT;
CREATE INDEX analytics_hits_day ON analytics_hits(day, post_id);
CREATE INDEX analytics_hits_ts ON analytics_hits(ts);

CREATE TABLE analytics_salts (
  day TEXT PRIMARY KEY,
  salt BLOB NOT NULL
) STRICT, WITHOUT ROWID;

-- oEmbed proxy answers from external providers, per argument set, for a day (WordPress keeps them as transients).
CREATE TABLE oembed_cache (
  key TEXT PRIMARY KEY,
  data TEXT NOT NULL,
  expires TEXT NOT NULL
) STRICT, WITHOUT ROWID;
