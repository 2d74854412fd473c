-- PostgreSQL form of migrations/009-term-author.sql (first written from it mechanically; kept here since).
-- Terms get an author (issue 10, CONTRACT section 3): only a term's author or an administrator changes or
-- deletes it. Terms made before this migration keep author 0, so only administrators change them.
ALTER TABLE terms ADD COLUMN author bigint NOT NULL DEFAULT 0;
