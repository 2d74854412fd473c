import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { mailIdle, sendMail } from '../../../server/mail/index.ts';
import { claimMailLog, getMailLog, insertMailLog } from '../../../server/db/repos/mail-log.ts';
import { resumeQueuedMail } from '../../../server/mail/service.ts';
import { HttpError } from '../../../server/kernel/errors.ts';
import { leaves, parseMime } from './mime.ts';
import { closedPort, startSmtpCatcher, type SmtpCatcher } from './smtp-catcher.ts';

const rows = async (s: TestServer) =>
  (await s.db.prepare('SELECT * FROM mail_log ORDER BY id').all()) as { id: number; status: string; eml_file: string | null }[];

/** A server of its own whose mail thread has made one message (so it is running). */
async function serverWithThread() {
  const other = await startTestServer();
  await sendMail(other.app.state, { to: 'a@example.test', subject: 'First', text: 'x' });
  await mailIdle(other.app.state);
  const thread = other.app.state.services.mail!.thread;
  assert.equal(thread.completed, 1);
  return { other, thread };
}

describe('mail service without SMTP: .eml files under <dataDir>/mail/', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  test('a message is logged as queued, then written as a parseable .eml and logged as sent', async () => {
    const pdf = Buffer.from([0x25, 0x50, 0x44, 0x46, 0x00, 0xff, 0x10]);
    const id = await sendMail(s.app.state, {
      to: ['"Mari Maasikas" <mari@example.test>', 'jaan@example.test'],
      cc: 'boss@example.test',
      subject: 'Tere – ümberjaotus',
      text: 'Plain body ÄÖÜ',
      html: '<p>HTML body</p>',
      headers: { 'X-Campaign': 'spring' },
      attachments: [{ filename: 'info.pdf', content: pdf, contentType: 'application/pdf' }],
      source: 'test',
    });
    assert.equal((await getMailLog(s.db, id))?.status, 'queued');
    await mailIdle(s.app.state);
    const row = (await getMailLog(s.db, id))!;
    assert.equal(row.status, 'sent');
    assert.equal(row.transport, 'file');
    assert.equal(row.attempts, 1);
    assert.ok(row.eml_file);
    const file = path.join(s.dir, 'mail', row.eml_file!);
    const mail = parseMime(fs.readFileSync(file));
    assert.equal(mail.headers.subject, 'Tere – ümberjaotus');
    assert.match(mail.headers.to, /Mari Maasikas/);
    assert.match(mail.headers.to, /jaan@example\.test/);
    assert.equal(mail.headers.cc, 'boss@example.test');
    assert.equal(mail.headers['x-campaign'], 'spring');
    assert.equal(mail.headers['x-doorstep-mail-id'], String(id));
    const parts = leaves(mail);
    assert.equal(
      parts
        .find((p) => p.type === 'text/plain')
        ?.body.toString('utf8')
        .trim(),
      'Plain body ÄÖÜ',
    );
    assert.equal(
      parts
        .find((p) => p.type === 'text/html')
        ?.body.toString('utf8')
        .trim(),
      '<p>HTML body</p>',
    );
    const att = parts.find((p) => p.type === 'application/pdf');
    assert.ok(att);
    assert.deepEqual(att.body, pdf);
    assert.match(att.headers['content-disposition'], /attachment; filename=info\.pdf/);
    const meta = await s.db.prepare('SELECT filename, content_type, size, cid FROM mail_attachments WHERE log_id = ?').all(id);
    assert.deepEqual(meta, [{ filename: 'info.pdf', content_type: 'application/pdf', size: pdf.length, cid: null }]);
    // Composed by the mail thread (mail-thread.ts), off the request thread.
    assert.equal(s.app.state.services.mail?.thread.completed, 1);
  });

  test('a message logged in a transaction that rolls back is neither kept nor sent', async () => {
    const before = (await rows(s)).length;
    const filesBefore = fs.readdirSync(path.join(s.dir, 'mail')).length;
    await assert.rejects(
      () =>
        s.db.transaction(async () => {
          await sendMail(s.app.state, { to: 'x@example.test', subject: 'Rolled back', text: 'never' });
          throw new Error('order failed');
        }),
      /order failed/,
    );
    await mailIdle(s.app.state);
    assert.equal((await rows(s)).length, before);
    assert.equal(fs.readdirSync(path.join(s.dir, 'mail')).length, filesBefore);
  });

  test('delivery waits for the commit: inside the transaction the message is only queued', async () => {
    let seen: string | undefined;
    const id = await s.db.transaction(async () => {
      const logId = await sendMail(s.app.state, { to: 'y@example.test', subject: 'After commit', text: 'body' });
      seen = (await getMailLog(s.db, logId))?.status;
      return logId;
    });
    assert.equal(seen, 'queued');
    await mailIdle(s.app.state);
    assert.equal((await getMailLog(s.db, id))?.status, 'sent');
  });

  test('without the mail thread (it failed or is gone) the request thread draws and composes, as before', async () => {
    const { other, thread } = await serverWithThread();
    try {
      await thread.stop();
      const id = await sendMail(other.app.state, { to: 'b@example.test', subject: 'After the thread', text: 'Still delivered' });
      await mailIdle(other.app.state);
      const row = (await getMailLog(other.db, id))!;
      assert.equal(row.status, 'sent', row.error ?? '');
      const mail = parseMime(fs.readFileSync(path.join(other.dir, 'mail', row.eml_file!)));
      assert.equal(mail.headers.subject, 'After the thread');
      assert.equal(mail.body.toString().trim(), 'Still delivered');
      assert.equal(thread.completed, 1, 'the second message was made here, not by the stopped thread');
    } finally {
      await other.close();
    }
  });

  test('a mail thread that dies with a message in hand: the message is still delivered, the next one by a new thread', async () => {
    const { other, thread } = await serverWithThread();
    try {
      const inside = thread as unknown as { worker: import('node:worker_threads').Worker | null };
      const worker = inside.worker;
      assert.ok(worker, 'the thread is running');
      // The thread is killed as the next message is handed to it.
      const post = worker.postMessage.bind(worker);
      worker.postMessage = (m: unknown) => {
        post(m);
        void worker.terminate();
      };
      const id = await sendMail(other.app.state, { to: 'b@example.test', subject: 'Cut short', text: 'Delivered anyway' });
      await mailIdle(other.app.state);
      const row = (await getMailLog(other.db, id))!;
      assert.equal(row.status, 'sent', row.error ?? '');
      assert.equal(parseMime(fs.readFileSync(path.join(other.dir, 'mail', row.eml_file!))).headers.subject, 'Cut short');
      const third = await sendMail(other.app.state, { to: 'c@example.test', subject: 'After', text: 'New thread' });
      await mailIdle(other.app.state);
      assert.equal((await getMailLog(other.db, third))?.status, 'sent');
      const before = thread.completed;
      const fourth = await sendMail(other.app.state, { to: 'd@example.test', subject: 'Again', text: 'New thread' });
      await mailIdle(other.app.state);
      assert.equal((await getMailLog(other.db, fourth))?.status, 'sent');
      assert.equal(thread.completed, before + 1, 'a new thread made it');
      assert.notEqual(inside.worker, worker);
    } finally {
      await other.close();
    }
  });

  test('bad addresses and header injection are refused with a 400 error and log nothing', async () => {
    const count = (await rows(s)).length;
    const bad = (m: Parameters<typeof sendMail>[1]) =>
      assert.rejects(
        () => sendMail(s.app.state, m),
        (e: unknown) => e instanceof HttpError && e.status === 400 && e.code === 'evt_mail_invalid',
      );
    await bad({ to: 'not an address', subject: 'x', text: 'x' });
    await bad({ to: [], subject: 'x', text: 'x' });
    await bad({ to: 'a@example.test', bcc: 'b@example.test\r\nX: y', subject: 'x', text: 'x' });
    await bad({ to: 'a@example.test', subject: 'x', text: 'x', headers: { 'X-Ok': 'v\r\nBcc: evil@example.test' } });
    await bad({ to: 'a@example.test', subject: 'x', text: 'x', headers: { Bcc: 'evil@example.test' } });
    await bad({ to: 'a@example.test', subject: '', text: 'x' });
    await bad({ to: 'a@example.test', subject: 'x' });
    assert.equal((await rows(s)).length, count);
    // A folded subject becomes one line instead of new headers.
    const id = await sendMail(s.app.state, { to: 'a@example.test', subject: 'Hi\r\nBcc: evil@example.test', text: 'x' });
    await mailIdle(s.app.state);
    const mail = parseMime(fs.readFileSync(path.join(s.dir, 'mail', (await getMailLog(s.db, id))!.eml_file!)));
    assert.equal(mail.headers.subject, 'Hi Bcc: evil@example.test');
    assert.equal(mail.headers.bcc, undefined);
  });
});

describe('messages left queued by an earlier run', () => {
  let s: TestServer;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  const leftOver = (subject: string) =>
    insertMailLog(s.db, {
      from_header: 'site@example.test',
      to_header: 'late@example.test',
      cc_header: '',
      bcc_header: '',
      reply_to_header: '',
      subject,
      headers: {},
      text_body: 'queued before a crash',
      html_body: null,
      source: 'test',
      related_id: null,
      resent_from: null,
    });

  test('are delivered after start-up, once; one another process has claimed is left to it', async () => {
    const free = await leftOver('Left over');
    const taken = await leftOver('Claimed elsewhere');
    assert.equal(await claimMailLog(s.db, taken, '1970-01-01 00:00:00'), true);
    assert.equal(await claimMailLog(s.db, taken, '1970-01-01 00:00:00'), false, 'a claim is exclusive');
    resumeQueuedMail(s.app.state, 0);
    resumeQueuedMail(s.app.state, 0);
    for (let i = 0; i < 500 && (await getMailLog(s.db, free))?.status === 'queued'; i++) await new Promise((r) => setTimeout(r, 10));
    await mailIdle(s.app.state);
    const row = (await getMailLog(s.db, free))!;
    assert.equal(row.status, 'sent');
    assert.equal(row.attempts, 1);
    assert.equal(fs.readdirSync(path.join(s.dir, 'mail')).length, 1);
    assert.equal((await getMailLog(s.db, taken))?.status, 'queued');
  });
});

describe('mail service over SMTP', () => {
  let s: TestServer;
  let port: number;
  let catcher: SmtpCatcher | undefined;
  beforeAll(async () => {
    port = await closedPort();
    s = await startTestServer({ EVT_SMTP_URL: `smtp://127.0.0.1:${port}` });
  });
  afterAll(async () => {
    await catcher?.close();
    await s.close();
  });

  test('a delivery to a closed port is logged as failed; resend succeeds once the server is up', async () => {
    const id = await sendMail(s.app.state, { to: 'guest@example.test', bcc: 'audit@example.test', subject: 'Your tickets', text: 'See you there' });
    await mailIdle(s.app.state);
    let row = (await getMailLog(s.db, id))!;
    assert.equal(row.status, 'failed');
    assert.equal(row.transport, `smtp://127.0.0.1:${port}`);
    assert.match(row.error ?? '', /ECONNREFUSED|ESOCKET|ECONNECTION/);
    assert.equal(fs.existsSync(path.join(s.dir, 'mail')), false, 'SMTP mode writes no files');

    const failed = await call(`${s.root}mail-log/v1/get-failed-logs`, { auth: s.admin });
    assert.equal(failed.status, 200);
    assert.deepEqual(
      failed.body.logs.map((l: { id: string }) => l.id),
      [String(id)],
    );

    catcher = await startSmtpCatcher(port);
    const r = await call(`${s.root}mail-log/v1/resend-email`, { method: 'POST', auth: s.admin, body: { id } });
    assert.equal(r.status, 200, r.text);
    assert.equal(r.body.success, true);
    assert.equal(r.body.data.message, 'Email successfully resend.');
    assert.equal(r.body.data.status, 'sent');
    assert.equal(r.body.data.resend_count, 1);
    row = (await getMailLog(s.db, id))!;
    assert.equal(row.status, 'sent');
    assert.equal(row.error, null);
    assert.equal(row.attempts, 2);
    assert.equal(catcher.messages.length, 1);
    const got = catcher.messages[0];
    assert.deepEqual(got.to.sort(), ['audit@example.test', 'guest@example.test']);
    const mail = parseMime(got.data);
    assert.equal(mail.headers.subject, 'Your tickets');
    assert.equal(mail.headers.bcc, undefined, 'Bcc is not written into the message');
    assert.equal(mail.body.toString().trim(), 'See you there');
    // Both attempts composed by the mail thread (the bytes sent are the ones it made, without the Bcc header above).
    assert.equal(s.app.state.services.mail?.thread.completed, 2);
    // The transcript keeps both attempts: the refused connection and the SMTP conversation.
    assert.match(row.transcript, /FAILED/);
    assert.match(row.transcript, /250 2\.0\.0 OK queued/);
  });
});
