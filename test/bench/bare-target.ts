import express from 'express';

/** The baseline: a bare Express 5 route answering with res.json. */
const app = express();
const payload = { id: 1, title: 'Baseline', status: 'publish' };
app.get('/bare', (_req, res) => {
  res.json(payload);
});
const server = app.listen(0, '127.0.0.1', () => {
  const addr = server.address();
  process.stdout.write(`LISTENING ${typeof addr === 'object' && addr ? addr.port : 0}\n`);
});
