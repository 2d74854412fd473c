-- Analytics are counted per page and day, never stored per request (CONTRACT section 3): one row per day, page,
-- referrer and visitor, holding its number of views (`views`) and when it was last seen (`ts`). Existing hits
-- are folded into those rows.
CREATE TABLE analytics_counted (
  id INTEGER PRIMARY KEY,
  -- UTC instant 'YYYY-MM-DD HH:MM:SS' of the latest view counted in the row
  ts TEXT NOT NULL,
  -- site-local calendar day 'YYYY-MM-DD' (ranges and daily series are in the site's time zone)
  day TEXT NOT NULL,
  kind TEXT NOT NULL CHECK (kind IN ('page', 'api')),
  path TEXT NOT NULL,
  post_id INTEGER NOT NULL DEFAULT 0,
  referrer_host TEXT NOT NULL DEFAULT '',
  visitor TEXT NOT NULL,
  views INTEGER NOT NULL DEFAULT 1
) STRICT;
INSERT INTO analytics_counted (ts, day, kind, path, post_id, referrer_host, visitor, views)
  SELECT MAX(ts), day, kind, path, post_id, referrer_host, visitor, COUNT(*) FROM analytics_hits
  GROUP BY day, kind, path, post_id, referrer_host, visitor;
DROP TABLE analytics_hits;
ALTER TABLE analytics_counted RENAME TO analytics_hits;
CREATE UNIQUE INDEX analytics_hits_once ON analytics_hits(day, post_id, kind, path, referrer_host, visitor);
CREATE INDEX analytics_hits_ts ON analytics_hits(ts);
