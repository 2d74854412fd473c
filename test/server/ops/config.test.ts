import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { loadConfig } from '../../../server/config.ts';

/** Every variable is checked when the server starts (server/config.ts), not when a request first needs it. */
describe('configuration from the environment', () => {
  test('a time zone the runtime does not know is refused at start-up; a real one is accepted', () => {
    assert.throws(() => loadConfig({ EVT_TIMEZONE: 'Europe/Atlantis' }), /Invalid configuration:\n\s+EVT_TIMEZONE: must be an IANA time zone name/);
    assert.throws(() => loadConfig({ EVT_TIMEZONE: 'UTC+2' }), /EVT_TIMEZONE/);
    assert.equal(loadConfig({ EVT_TIMEZONE: 'Europe/Tallinn' }).timezone, 'Europe/Tallinn');
    assert.equal(loadConfig({}).timezone, 'UTC');
  });

  test('a misspelt variable is refused with the known names, not ignored', () => {
    assert.throws(() => loadConfig({ EVT_TLS_CRT: '/etc/cert.pem' }), /EVT_TLS_CRT: unknown variable \(known: .*EVT_TLS_CERT/);
  });

  test('each value is checked, and every problem is listed at once', () => {
    const e = (() => {
      try {
        loadConfig({
          PORT: '80000',
          EVT_LOG: 'loud',
          EVT_LOG_LEVEL: 'chatty',
          EVT_PUBLIC_URL: 'ftp://x.example',
          EVT_SMTP_URL: 'http://mail.example',
          EVT_SECRET: 'short',
        });
      } catch (err) {
        return (err as Error).message;
      }
      return '';
    })();
    for (const name of ['PORT', 'EVT_LOG', 'EVT_LOG_LEVEL', 'EVT_PUBLIC_URL', 'EVT_SMTP_URL', 'EVT_SECRET'])
      assert.match(e, new RegExp(`\\n  ${name}: `), name);
    assert.ok(!e.includes('mail.example'), 'values are not echoed (an SMTP URL may hold a password)');
  });

  test('the administrator: user and password both or neither, the missing one named', () => {
    assert.throws(
      () => loadConfig({ EVT_ADMIN_USER: 'admin' }),
      /Invalid configuration:\n\s+EVT_ADMIN_PASSWORD: must be set together with EVT_ADMIN_USER/,
    );
    assert.throws(() => loadConfig({ EVT_ADMIN_PASSWORD: 'secret-pass' }), /EVT_ADMIN_USER: must be set together with EVT_ADMIN_PASSWORD/);
    assert.throws(() => loadConfig({ EVT_ADMIN_USER: 'admin', EVT_ADMIN_PASSWORD: '' }), /EVT_ADMIN_PASSWORD: must be set/);
    const both = loadConfig({ EVT_ADMIN_USER: 'admin', EVT_ADMIN_PASSWORD: 'secret-pass' });
    assert.deepEqual([both.adminUser, both.adminPassword], ['admin', 'secret-pass']);
    assert.equal(loadConfig({}).adminUser, undefined);
  });

  test('a variable set to nothing means its default', () => {
    const c = loadConfig({ EVT_PUBLIC_URL: '', PORT: '', EVT_LOG_LEVEL: '' });
    assert.equal(c.publicUrl, 'http://127.0.0.1:8080');
    assert.equal(c.logLevel, 'info');
  });

  test('TLS: both files or neither; they must be a readable certificate and its key', () => {
    assert.throws(() => loadConfig({ EVT_TLS_CERT: '/nonexistent/cert.pem' }), /EVT_TLS_KEY: must be set together with EVT_TLS_CERT/);
    assert.throws(
      () => loadConfig({ EVT_TLS_CERT: '/nonexistent/cert.pem', EVT_TLS_KEY: '/nonexistent/key.pem' }),
      /EVT_TLS_CERT: cannot read \/nonexistent\/cert\.pem: ENOENT/,
    );
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'doorstep-config-'));
    try {
      fs.writeFileSync(path.join(dir, 'junk.pem'), 'not a certificate');
      assert.throws(
        () => loadConfig({ EVT_TLS_CERT: path.join(dir, 'junk.pem'), EVT_TLS_KEY: path.join(dir, 'junk.pem') }),
        /EVT_TLS_CERT: .* is not a PEM certificate/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
