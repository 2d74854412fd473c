-- PostgreSQL form of migrations/024-venue-hub.sql (a site on PostgreSQL has the columns; only a SQLite hub fills them).
ALTER TABLE checkins ADD COLUMN upstream text;
ALTER TABLE checkins ADD COLUMN device_label text;
ALTER TABLE checkins ADD COLUMN replaces_id bigint;

CREATE TABLE hub_state (
  name text PRIMARY KEY,
  value text NOT NULL
);
