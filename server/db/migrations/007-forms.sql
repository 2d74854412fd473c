-- Forms and their submissions (the forms-views and forms-submissions namespaces).
-- A form is a post of type `form`; a submission is a post of type `submission` whose parent is the form.

-- Fields of a form, in display order. `key` is the field slug submissions are keyed on.
CREATE TABLE form_fields (
  id INTEGER PRIMARY KEY AUTOINCREMENT,
  form_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  position INTEGER NOT NULL,
  key TEXT NOT NULL,
  label TEXT NOT NULL,
  type TEXT NOT NULL,
  required INTEGER NOT NULL DEFAULT 0,
  -- JSON array of {label, value} for list fields, [] otherwise
  options TEXT NOT NULL DEFAULT '[]',
  UNIQUE (form_id, key)
) STRICT;
CREATE INDEX form_fields_form ON form_fields(form_id, position);

-- Per-submission data besides the post row: the form's running number, the submitter's address as a keyed
-- hash (never the raw address), and the flags the admin screens set through handle-extra.
CREATE TABLE submissions (
  post_id INTEGER PRIMARY KEY REFERENCES posts(id) ON DELETE CASCADE,
  form_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  seq_num INTEGER NOT NULL,
  ip_hash TEXT NOT NULL DEFAULT '',
  is_read INTEGER NOT NULL DEFAULT 0,
  starred INTEGER NOT NULL DEFAULT 0,
  spam INTEGER NOT NULL DEFAULT 0,
  note TEXT NOT NULL DEFAULT '',
  UNIQUE (form_id, seq_num)
) STRICT;
CREATE INDEX submissions_form ON submissions(form_id, post_id);

-- One value per (submission, field), JSON-encoded (a string, a number, a boolean or a list of strings).
CREATE TABLE submission_values (
  submission_id INTEGER NOT NULL REFERENCES posts(id) ON DELETE CASCADE,
  field_id INTEGER NOT NULL REFERENCES form_fields(id) ON DELETE CASCADE,
  value TEXT NOT NULL,
  PRIMARY KEY (submission_id, field_id)
) STRICT;

-- Short-lived tokens of the submissions-table views (forms-views/token/refresh). The token itself is signed;
-- this row lets a refresh revoke the token it replaces and lets a user's tokens die with the user.
CREATE TABLE form_view_tokens (
  id TEXT PRIMARY KEY,
  user_id INTEGER NOT NULL REFERENCES users(id) ON DELETE CASCADE,
  -- JSON array of form IDs, or null for every form
  form_ids TEXT,
  created TEXT NOT NULL,
  expires TEXT NOT NULL,
  revoked_at TEXT
) STRICT;
CREATE INDEX form_view_tokens_user ON form_view_tokens(user_id);
