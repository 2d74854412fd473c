-- Mail: every outgoing message is logged before it is delivered (Post SMTP's post_smtp_logs, with the
-- message parts kept so a failed message can be resent exactly as it was composed).

CREATE TABLE mail_log (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  status TEXT NOT NULL CHECK (status IN ('queued', 'sent', 'failed')),
  from_header TEXT NOT NULL,
  -- Recipients as comma-separated addresses (already validated).
  to_header TEXT NOT NULL,
  cc_header TEXT NOT NULL DEFAULT '',
  bcc_header TEXT NOT NULL DEFAULT '',
  reply_to_header TEXT NOT NULL DEFAULT '',
  subject TEXT NOT NULL,
  -- Extra headers, a JSON object of name -> value.
  headers TEXT NOT NULL DEFAULT '{}',
  text_body TEXT NOT NULL DEFAULT '',
  html_body TEXT,
  -- Where the last delivery went: 'smtp://host:port' (never credentials) or 'file'.
  transport TEXT NOT NULL DEFAULT '',
  error TEXT,
  -- What each delivery attempt said, appended.
  transcript TEXT NOT NULL DEFAULT '',
  message_id TEXT,
  -- The .eml file under <dataDir>/mail/ when the file transport delivered it.
  eml_file TEXT,
  -- Who asked for the message ('tickets', 'forms', 'resend', ...) and about what (an order ID, ...).
  source TEXT NOT NULL DEFAULT '',
  related_id INTEGER,
  -- A resend to other recipients is a new message pointing at the one it copies.
  resent_from INTEGER REFERENCES mail_log(id) ON DELETE SET NULL,
  created_utc TEXT NOT NULL,
  updated_utc TEXT NOT NULL,
  sent_utc TEXT,
  -- Set by the process delivering it, so two processes on one database never send a message twice.
  claimed_utc TEXT,
  attempts INTEGER NOT NULL DEFAULT 0,
  resend_count INTEGER NOT NULL DEFAULT 0,
  -- Dashboard notification state (Post SMTP log meta opened_in_dashboard / notification_deleted).
  opened INTEGER NOT NULL DEFAULT 0,
  notification_deleted INTEGER NOT NULL DEFAULT 0
) STRICT;
CREATE INDEX mail_log_status ON mail_log(status, id);
CREATE INDEX mail_log_created ON mail_log(created_utc);

CREATE TABLE mail_attachments (
  id INTEGER PRIMARY KEY,
  log_id INTEGER NOT NULL REFERENCES mail_log(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  filename TEXT NOT NULL,
  content_type TEXT NOT NULL,
  -- Content-ID of an inline part (referenced as cid: from the HTML part), NULL for a plain attachment.
  cid TEXT,
  size INTEGER NOT NULL,
  sha256 TEXT NOT NULL,
  content BLOB NOT NULL,
  -- A QR image drawn after commit (ticket e-mails): its text, while content is still empty.
  qr_text TEXT,
  UNIQUE (log_id, position)
) STRICT;

-- Mobile apps connected to the mail log (Post SMTP's post_smtp_mobile_app_connection). The app's token is a
-- bearer credential, so only its SHA-256 is kept (tokens are long and random: a fast hash is enough to look up).
CREATE TABLE mail_apps (
  id INTEGER PRIMARY KEY,
  token_hash TEXT NOT NULL UNIQUE,
  token_hint TEXT NOT NULL,
  device TEXT NOT NULL,
  server_url TEXT NOT NULL DEFAULT '',
  enable_notification INTEGER NOT NULL DEFAULT 1,
  connected_utc TEXT NOT NULL,
  last_seen_utc TEXT
) STRICT;

-- The pairing key an administrator hands to an app (Post SMTP's 30-minute post_smtp_auth_nonce), hashed.
CREATE TABLE mail_pairing (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  key_hash TEXT NOT NULL,
  expires_utc TEXT NOT NULL,
  created_by INTEGER NOT NULL DEFAULT 0
) STRICT;

-- The mail-log license (one per site): the key as entered, checked against the documented format.
CREATE TABLE mail_license (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  license_key TEXT NOT NULL,
  activated_utc TEXT NOT NULL,
  activated_by INTEGER NOT NULL DEFAULT 0,
  last_checked_utc TEXT
) STRICT;
