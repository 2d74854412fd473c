-- PostgreSQL form of migrations/011-event-list-index.sql (first written from it mechanically; kept here since).
-- The archive's page query walks events in start order and tests each row's end date and listing flag: with
-- them in the index it reads no event rows (page of one category among 10,000 events: 0.24 -> 0.19 ms). Same
-- leading columns as events_start, which it replaces.
CREATE INDEX events_list ON events(start_utc, post_id, end_utc, hide_from_listings);
DROP INDEX events_start;
