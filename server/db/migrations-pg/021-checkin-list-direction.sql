-- PostgreSQL form of migrations/021-checkin-list-direction.sql (first written from it mechanically; kept here since).
-- A check-in list is an entry or an exit (CONTRACT section 8 extension): through an exit list every scan is an
-- exit, so a door at the way out (a kiosk, or the original's QR app, which only knows check-in) records exits.
ALTER TABLE checkin_lists ADD COLUMN direction text NOT NULL DEFAULT 'entry';
