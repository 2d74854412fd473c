-- Check-in lists (CONTRACT section 8): the gates of an event, each with its own rules. An event without lists
-- keeps the one implicit list of section 7. `ticket_ids` is a JSON array of ticket IDs ('[]' admits every
-- ticket of the event); the window is site-local `YYYY-MM-DD HH:MM:SS`, resolved to instants when a scan is
-- decided, so a change of the site's time zone moves it as it moves every other site-local date.
CREATE TABLE checkin_lists (
  id INTEGER PRIMARY KEY,
  event_id INTEGER NOT NULL,
  name TEXT NOT NULL,
  ticket_ids TEXT NOT NULL DEFAULT '[]',
  allow_reentry INTEGER NOT NULL DEFAULT 1,
  allow_multiple_entries INTEGER NOT NULL DEFAULT 0,
  window_start TEXT,
  window_end TEXT,
  entries_per_day INTEGER,
  created_utc TEXT NOT NULL
) STRICT;
CREATE INDEX checkin_lists_event ON checkin_lists(event_id, id);

-- The list a scan went through (NULL: the event's implicit list), so each list's history can be read: an
-- attendee's passes on one list, and a list's counts.
ALTER TABLE checkins ADD COLUMN list_id INTEGER;
CREATE INDEX checkins_list ON checkins(list_id, attendee_id, id) WHERE list_id IS NOT NULL;

-- A door key bound to a list (its event_id is the list's event): it reads that list only.
ALTER TABLE api_keys ADD COLUMN list_id INTEGER;
