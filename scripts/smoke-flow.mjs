// The smoke test's client (run by scripts/smoke-node22.sh with the Node under test): health, then an event,
// a ticket, an attendee and its check-in through the REST API, as the administrator's application password.
// Usage: node scripts/smoke-flow.mjs <base URL> <login> <application password>
const [base, login, password] = process.argv.slice(2);
const auth = `Basic ${Buffer.from(`${login}:${password}`).toString('base64')}`;
const root = `${base}/wp-json`;

async function call(method, path, body) {
  const r = await fetch(`${root}${path}`, {
    method,
    headers: { Authorization: auth, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    body: body ? JSON.stringify(body) : undefined,
  });
  const text = await r.text();
  let json;
  try {
    json = JSON.parse(text);
  } catch {
    json = text;
  }
  return { status: r.status, body: json };
}

function expect(r, status, what) {
  if (r.status !== status) throw new Error(`${what}: expected ${status}, got ${r.status}: ${JSON.stringify(r.body).slice(0, 500)}`);
  return r.body;
}

const health = await fetch(`${base}/health`);
expect({ status: health.status, body: await health.text() }, 200, 'GET /health');
const start = new Date(Date.now() + 7 * 86_400_000).toISOString().slice(0, 10);
const event = expect(
  await call('POST', '/evt/events/v1/events', { title: 'Smoke test', start_date: `${start} 19:00:00`, end_date: `${start} 22:00:00` }),
  201,
  'create event',
);
const nonce = expect(await call('GET', `/evt/events/v1/events/${event.id}?context=edit`), 200, 'read event').nonces.add_ticket_nonce;
const ticket = expect(
  await call('POST', '/evt/tickets/v1/tickets', { post_id: event.id, add_ticket_nonce: nonce, provider: 'rsvp', name: 'General admission' }),
  202,
  'create ticket',
);
const attendee = expect(
  await call('POST', '/evt/tickets/v1/attendees', { ticket_id: ticket.id, full_name: 'Smoke Tester', email: 'smoke@example.org' }),
  201,
  'create attendee',
);
const checkin = await call('POST', `/evt/tickets/v1/attendees/${attendee.id}`, { check_in: true });
if (checkin.status !== 200 && checkin.status !== 201) expect(checkin, 200, 'check in');
const after = expect(await call('GET', `/evt/tickets/v1/attendees/${attendee.id}`), 200, 'read attendee');
if (after.checked_in !== true) throw new Error(`the attendee is not checked in: ${JSON.stringify(after).slice(0, 500)}`);
process.stdout.write(`smoke: Node ${process.version}: health ok, event ${event.id}, ticket ${ticket.id}, attendee ${attendee.id} checked in\n`);
