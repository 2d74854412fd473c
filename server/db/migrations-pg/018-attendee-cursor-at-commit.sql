-- The attendee change cursor (`sequences` row 'attendee_change', handed to kiosks as X-EVT-Cursor) is moved at
-- COMMIT instead of at each change.
--
-- Why: the cursor must follow commit order (a kiosk that read cursor N must never miss a change numbered N or
-- less that commits later), so the counter row is locked from the moment it moves until the transaction ends.
-- Moved at the change (002's triggers), every check-in held that one row locked across the rest of its
-- transaction's round trips, and a batch of 25 across all 25: every writer of every event waited for it. Here a
-- change only notes its attendee in evt_attendee_dirty (a row per attendee, so writers of different attendees do
-- not meet), and a deferred trigger numbers the noted attendees as the transaction commits, inside the server,
-- with no round trip left before the COMMIT completes: the counter's lock is held for microseconds.
CREATE TABLE evt_attendee_dirty (post_id bigint PRIMARY KEY);

CREATE OR REPLACE FUNCTION attendees_change_insert_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
BEGIN
  INSERT INTO evt_attendee_dirty (post_id) VALUES (NEW.post_id) ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$trg$;

CREATE OR REPLACE FUNCTION attendees_change_update_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
BEGIN
  INSERT INTO evt_attendee_dirty (post_id) VALUES (NEW.post_id) ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$trg$;

CREATE OR REPLACE FUNCTION attendee_posts_change_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
BEGIN
  IF NEW.type = 'attendee' THEN
    INSERT INTO evt_attendee_dirty (post_id) VALUES (NEW.id) ON CONFLICT DO NOTHING;
  END IF;
  RETURN NULL;
END
$trg$;

CREATE OR REPLACE FUNCTION order_status_change_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
BEGIN
  INSERT INTO evt_attendee_dirty (post_id) SELECT post_id FROM attendees WHERE order_id = NEW.post_id ON CONFLICT DO NOTHING;
  RETURN NULL;
END
$trg$;

CREATE FUNCTION evt_attendee_cursor_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
DECLARE
  v bigint;
BEGIN
  DELETE FROM evt_attendee_dirty WHERE post_id = NEW.post_id;
  IF NOT FOUND THEN
    RETURN NULL;
  END IF;
  UPDATE sequences SET value = value + 1 WHERE name = 'attendee_change' RETURNING value INTO v;
  UPDATE attendees SET change_seq = v WHERE post_id = NEW.post_id;
  RETURN NULL;
END
$trg$;

CREATE CONSTRAINT TRIGGER evt_attendee_cursor AFTER INSERT ON evt_attendee_dirty
  DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION evt_attendee_cursor_fn();
