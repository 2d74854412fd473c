-- PostgreSQL leaves room in attendee pages for a check-in's update (migrations-pg/028). SQLite writes a row in
-- place and has no such setting: nothing changes here.
SELECT 1;
