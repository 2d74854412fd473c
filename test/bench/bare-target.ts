import fs from 'node:fs';
import express from 'express';

/**
 * The baselines: a bare Express 5 route answering with res.json (`/bare`, the baseline), and, when
 * BARE_BODY_FILE names a file, a bare route sending that file's bytes, read once at start, as a JSON answer
 * (`/bare-body`: the cost of the bytes alone, for answers as large as an archive page; no ETag, as our app).
 */
const app = express();
const payload = { id: 1, title: 'Baseline', status: 'publish' };
app.get('/bare', (_req, res) => {
  res.json(payload);
});
const body = process.env.BARE_BODY_FILE ? fs.readFileSync(process.env.BARE_BODY_FILE) : null;
if (body) {
  app.get('/bare-body', (_req, res) => {
    res.setHeader('Content-Type', 'application/json; charset=UTF-8');
    res.end(body);
  });
}
const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`LISTENING ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
