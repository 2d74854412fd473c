-- The attendee change cursor's numbers (what `changed_since` compares, X-EVT-Cursor) move out of `attendees` into
-- a table of their own, `attendee_cursor`, written at COMMIT as 018 writes them.
--
-- Why: 018 numbered a change by updating the attendee's row again at commit, with the counter row locked. That
-- second update of a row the transaction had already changed was a whole new row version: a non-HOT update
-- (change_seq is indexed) with an entry in each of the table's indexes, and PostgreSQL checks every foreign key
-- of a row its own transaction wrote, keys changed or not (the ticket, the event, the order, the post: `FOR KEY
-- SHARE` on the one ticket row every concurrent check-in of that ticket shares, a MultiXact each). All of it ran
-- while the counter row, which every writer of every event waits for, was held. Measured with
-- pg_stat_statements in bench:scale: the foreign-key checks alone 15 s of 1.8 ms each in a 10 s run, and the
-- counter's update waiting 40-100 ms. Here the number is one row of a narrow table with no foreign keys: an
-- upsert by primary key.
CREATE TABLE attendee_cursor (
  post_id bigint PRIMARY KEY,
  change_seq bigint NOT NULL
);
INSERT INTO attendee_cursor (post_id, change_seq) SELECT post_id, change_seq FROM attendees;
CREATE INDEX attendee_cursor_seq ON attendee_cursor(change_seq, post_id);
DROP INDEX attendees_change;
ALTER TABLE attendees DROP COLUMN change_seq;

-- And a transaction's changes are numbered at once: each noted attendee carries the transaction that noted it
-- (`tx`, the top-level transaction's ID, also inside a savepoint), and the first of the transaction's deferred
-- firings numbers all of them in one step (one move of the counter, one upsert); the others find nothing left.
-- Per attendee, a batch of 25 check-ins ran 25 trigger calls of three statements each with the counter held.
ALTER TABLE evt_attendee_dirty ADD COLUMN tx xid8 NOT NULL DEFAULT pg_current_xact_id();
CREATE INDEX evt_attendee_dirty_tx ON evt_attendee_dirty(tx);

CREATE OR REPLACE FUNCTION evt_attendee_cursor_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
DECLARE
  ids bigint[];
  v bigint;
BEGIN
  WITH d AS (DELETE FROM evt_attendee_dirty WHERE tx = pg_current_xact_id() RETURNING post_id)
  SELECT array_agg(post_id ORDER BY post_id) INTO ids FROM d;
  IF ids IS NULL THEN
    RETURN NULL;
  END IF;
  UPDATE sequences SET value = value + cardinality(ids) WHERE name = 'attendee_change' RETURNING value INTO v;
  -- An attendee deleted in the same transaction gets no number (attendees_cursor_delete removed its row).
  INSERT INTO attendee_cursor (post_id, change_seq)
    SELECT x.id, v - cardinality(ids) + x.n FROM unnest(ids) WITH ORDINALITY AS x(id, n)
    WHERE EXISTS (SELECT 1 FROM attendees a WHERE a.post_id = x.id)
    ON CONFLICT (post_id) DO UPDATE SET change_seq = excluded.change_seq;
  RETURN NULL;
END
$trg$;

CREATE FUNCTION attendees_cursor_delete_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
BEGIN
  DELETE FROM attendee_cursor WHERE post_id = OLD.post_id;
  RETURN NULL;
END
$trg$;
CREATE TRIGGER attendees_cursor_delete AFTER DELETE ON attendees FOR EACH ROW EXECUTE FUNCTION attendees_cursor_delete_fn();
