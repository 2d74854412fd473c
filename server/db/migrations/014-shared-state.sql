-- State several server processes on one database share (issue 15 item 3), used when the app's `sharedState` is
-- 'database' (the default on PostgreSQL); with 'process' (the SQLite default) these tables stay empty.

-- Rate limits and sign-in throttles: one row per counted event (a failed sign-in, a checkout, a form submit) of
-- the limiter `name` against `key` (a login, a client address, an API key; keys longer than 64 characters are
-- stored as their hash). Rows older than their limiter's window are swept; each key keeps at most its limit.
CREATE TABLE evt_rate_events (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  name TEXT NOT NULL,
  key TEXT NOT NULL,
  at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX evt_rate_events_key ON evt_rate_events(name, key, at_ms);
CREATE INDEX evt_rate_events_at ON evt_rate_events(name, at_ms);

-- Cache invalidation across processes: a write appends the cache tags it changed (a JSON array, or 'all') in its
-- own transaction; each process reads the rows after the last `seq` it applied and drops exactly those tags.
-- `origin` names the process that wrote the row (it applied its own changes when it made them).
-- AUTOINCREMENT: a pruned log must never hand out a `seq` a reader has already passed. Rows a few minutes old
-- are pruned.
CREATE TABLE evt_change_log (
  seq INTEGER PRIMARY KEY AUTOINCREMENT,
  tags TEXT NOT NULL,
  origin TEXT NOT NULL,
  at_ms INTEGER NOT NULL
) STRICT;
CREATE INDEX evt_change_log_at ON evt_change_log(at_ms);
