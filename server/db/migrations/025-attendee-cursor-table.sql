-- PostgreSQL moves the attendee change cursor's numbers into a table of their own (migrations-pg/025: there a
-- second row version of the attendee, written at commit, cost an index entry per index and a check of every
-- foreign key). SQLite numbers a change in the same statement's trigger, on one connection that writes alone,
-- and keeps `attendees.change_seq`: nothing changes here.
SELECT 1;
