-- A check-in list is an entry or an exit (CONTRACT section 8 extension): through an exit list every scan is an
-- exit, so a door at the way out (a kiosk, or the original's QR app, which only knows check-in) records exits.
ALTER TABLE checkin_lists ADD COLUMN direction TEXT NOT NULL DEFAULT 'entry';
