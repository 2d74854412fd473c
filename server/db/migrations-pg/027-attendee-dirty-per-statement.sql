-- An attendee change is noted once per statement, and a transaction's notes are numbered by one deferred firing.
--
-- Why: 018's triggers ran per row. A batch of 25 check-ins updates 25 attendees in one statement: 25 trigger calls
-- each inserting one row into evt_attendee_dirty, and at COMMIT 25 deferred firings of evt_attendee_cursor_fn, of
-- which the first numbered every note of the transaction (025) and the other 24 found nothing (pg_stat_statements
-- in bench:scale: 50 statements a batch, about a tenth of PostgreSQL's time per check-in). Now:
-- - the attendees' insert and update triggers are per statement, over the statement's transition table: one
--   INSERT of all its attendees;
-- - any insert into evt_attendee_dirty (these, and the per-row triggers of posts and orders) notes its transaction
--   once in evt_dirty_transactions, per statement; the deferred constraint trigger is on that table, so it fires
--   once per transaction (ON CONFLICT DO NOTHING fires no insert trigger for the row it skips), and
--   evt_attendee_cursor_fn removes the transaction's note, so a later note of the same transaction (a constraint
--   made immediate) fires it again. A savepoint rolled back takes its notes and their firing with it.
CREATE TABLE evt_dirty_transactions (tx xid8 PRIMARY KEY);

CREATE OR REPLACE FUNCTION evt_attendee_cursor_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
DECLARE
  ids bigint[];
  v bigint;
BEGIN
  DELETE FROM evt_dirty_transactions WHERE tx = pg_current_xact_id();
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

DROP TRIGGER evt_attendee_cursor ON evt_attendee_dirty;
CREATE CONSTRAINT TRIGGER evt_attendee_cursor AFTER INSERT ON evt_dirty_transactions
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION evt_attendee_cursor_fn();

CREATE FUNCTION evt_dirty_transaction_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
BEGIN
  INSERT INTO evt_dirty_transactions (tx) VALUES (pg_current_xact_id()) ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$trg$;
CREATE TRIGGER evt_dirty_transaction AFTER INSERT ON evt_attendee_dirty FOR EACH STATEMENT EXECUTE FUNCTION evt_dirty_transaction_fn();

DROP TRIGGER attendees_change_insert ON attendees;
CREATE OR REPLACE FUNCTION attendees_change_insert_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
BEGIN
  INSERT INTO evt_attendee_dirty (post_id) SELECT post_id FROM evt_new ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$trg$;
CREATE TRIGGER attendees_change_insert AFTER INSERT ON attendees REFERENCING NEW TABLE AS evt_new
  FOR EACH STATEMENT EXECUTE FUNCTION attendees_change_insert_fn();

-- A trigger with transition tables cannot name columns (002's UPDATE OF): every updated attendee is noted. The
-- only other column an UPDATE writes is `status`, which 004's trigger copies from the attendee's post as the post's
-- own change is noted (attendee_posts_change); a statement that sets a column to its value notes the attendee as
-- before (checkin-lists.ts's `SET ticket_id = ticket_id` sends a list's attendees to kiosks again).
DROP TRIGGER attendees_change_update ON attendees;
CREATE TRIGGER attendees_change_update AFTER UPDATE ON attendees REFERENCING NEW TABLE AS evt_new
  FOR EACH STATEMENT EXECUTE FUNCTION attendees_change_insert_fn();
DROP FUNCTION attendees_change_update_fn();
