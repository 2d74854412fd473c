'use strict';
// The mail thread (see mail-thread.ts). Plain CommonJS so the thread starts without a TypeScript loader. It does a
// delivery's CPU work off the request thread: the ticket QR images (qr-png.cjs) and the MIME message nodemailer
// builds from them, which together were a quarter of a server's CPU during a checkout rush (bench:scale).
const { parentPort } = require('node:worker_threads');
const nodemailer = require('nodemailer');
const { qrPng } = require('./qr-png.cjs');

/**
 * The composers: nodemailer's own message building (its normalising, plugins, Message-ID and Date) without a
 * delivery. For the .eml files (`unix`) the stream transport the file transport used before, as it writes them; for
 * SMTP (`windows`) the message as the SMTP transport would stream it: CRLF line endings and no Bcc header (the
 * envelope still names those recipients).
 */
const composers = {
  unix: nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' }),
  windows: nodemailer.createTransport({
    name: 'doorstep-compose',
    version: '1',
    send(mail, done) {
      const envelope = mail.message.getEnvelope();
      const messageId = mail.message.messageId();
      mail.message.build((err, message) => (err ? done(err) : done(null, { envelope, messageId, message })));
    },
  }),
};

/** A Buffer over what structured clone delivered (a Uint8Array), without copying it. */
const asBuffer = (u) => (Buffer.isBuffer(u) ? u : Buffer.from(u.buffer, u.byteOffset, u.byteLength));

async function run(job) {
  const pngs = job.qr.map(({ index, text }) => ({ index, content: qrPng(text) }));
  if (!job.msg) return { pngs, compiled: null };
  const msg = job.msg;
  msg.attachments = (msg.attachments ?? []).map((a) => ({ ...a, content: asBuffer(a.content) }));
  for (const { index, content } of pngs) msg.attachments[index].content = content;
  const info = await composers[job.newline].sendMail(msg);
  return { pngs, compiled: { raw: info.message, envelope: info.envelope, messageId: info.messageId ?? null } };
}

parentPort.on('message', (job) => {
  run(job).then(
    (out) => parentPort.postMessage({ seq: job.seq, ...out }),
    (e) => parentPort.postMessage({ seq: job.seq, error: String(e?.message || e) }),
  );
});
