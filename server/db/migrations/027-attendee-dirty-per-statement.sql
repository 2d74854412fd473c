-- PostgreSQL notes attendee changes per statement and numbers a transaction's changes in one deferred firing
-- (migrations-pg/027). SQLite numbers a change in its statement's trigger, on one connection that writes alone:
-- nothing changes here.
SELECT 1;
