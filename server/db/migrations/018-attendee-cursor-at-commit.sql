-- PostgreSQL moves the attendee change cursor at COMMIT (migrations-pg/018): with several writers at once, a
-- counter taken at the change would be held locked by every check-in until its transaction ends. SQLite has one
-- writer at a time, so its triggers (002) stay as they are; this version number keeps both engines in step.
SELECT 1;
