-- PostgreSQL form of migrations/004-attendee-status.sql (first written from it mechanically; kept here since).
-- The attendee's post status, copied onto its row so the attendee lists (the kiosk pages through 100,000 of
-- them) filter, count and page on one covering index instead of a posts lookup per row. Triggers keep it in
-- step with posts.status whoever writes the attendee.
ALTER TABLE attendees ADD COLUMN status TEXT NOT NULL DEFAULT 'publish';
UPDATE attendees SET status = (SELECT p.status FROM posts p WHERE p.id = attendees.post_id);
CREATE INDEX attendees_event_status ON attendees(event_id, post_id, status);

CREATE FUNCTION attendees_status_insert_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
BEGIN
IF (SELECT p.status FROM posts p WHERE p.id = NEW.post_id) IS DISTINCT FROM NEW.status THEN
UPDATE attendees SET status = (SELECT p.status FROM posts p WHERE p.id = NEW.post_id) WHERE post_id = NEW.post_id;
END IF;
RETURN NULL;
END
$trg$;
CREATE TRIGGER attendees_status_insert AFTER INSERT ON attendees FOR EACH ROW EXECUTE FUNCTION attendees_status_insert_fn();
CREATE FUNCTION attendee_posts_status_fn() RETURNS trigger LANGUAGE plpgsql AS $trg$
BEGIN
IF NEW.type = 'attendee' THEN
UPDATE attendees SET status = NEW.status WHERE post_id = NEW.id;
END IF;
RETURN NULL;
END
$trg$;
CREATE TRIGGER attendee_posts_status AFTER UPDATE OF status ON posts FOR EACH ROW EXECUTE FUNCTION attendee_posts_status_fn();

-- The check-in log is read per device as well as per event.
CREATE INDEX checkins_device ON checkins(device_id, id) WHERE device_id IS NOT NULL;
