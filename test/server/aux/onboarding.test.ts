import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';

describe('tickets-onboarding/wizard', () => {
  let s: TestServer;
  const url = () => `${s.root}tickets-onboarding/wizard`;
  const nonceOf = async (auth: string) => (await call(url(), { auth })).body.action_nonce as string;
  const option = async (name: string) =>
    ((await s.db.prepare('SELECT value FROM options WHERE name = ?').get(name)) as { value: string } | undefined)?.value;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  test('GET gives an administrator the nonce and the stored settings', async () => {
    const r = await call(url(), { auth: s.admin });
    assert.equal(r.status, 200);
    assert.match(r.body.action_nonce, /^[0-9a-f]{10}$/);
    assert.deepEqual(r.body.settings, {
      begun: false,
      finished: false,
      current_tab: 0,
      completed_tabs: [],
      skipped_tabs: [],
      payment_option: '',
      last_send: {},
    });
    assert.equal(r.body.timezone, 'UTC');
  });

  test('POST with the nonce stores the settings as site options', async () => {
    const action_nonce = await nonceOf(s.admin);
    const body = {
      action_nonce,
      begun: true,
      currentTab: 1,
      completedTabs: [0],
      skippedTabs: [1, 2],
      paymentOption: 'stripe',
      currency: 'EUR',
      timezone: 'Europe/Tallinn',
      optin: true,
      event: { title: 'Launch night', start: '2026-12-01 19:00', end: '2026-12-01 23:00' },
    };
    const r = await call(url(), { method: 'POST', auth: s.admin, body });
    assert.equal(r.status, 200);
    assert.deepEqual(r.body, {
      success: true,
      message: [
        'Onboarding wizard step completed successfully.',
        'Successfully saved settings.',
        'Successfully saved the time zone.',
        'Successfully saved the first event.',
      ],
    });
    assert.equal(await option('tickets-commerce-currency-code'), 'EUR');
    assert.equal(await option('tickets-commerce-enabled'), '1');
    assert.equal(await option('timezone_string'), 'Europe/Tallinn');
    const read = (await call(url(), { auth: s.admin })).body;
    assert.deepEqual(read.settings.completed_tabs, [0]);
    assert.deepEqual(read.settings.skipped_tabs, [1, 2]);
    assert.equal(read.settings.begun, true);
    assert.equal(read.settings.last_send.currency, 'EUR');
    assert.equal('action_nonce' in read.settings.last_send, false, 'the nonce is not kept');
    assert.deepEqual(read.first_event, { title: 'Launch night', start: '2026-12-01 19:00', end: '2026-12-01 23:00' });
    assert.equal(read.currency, 'EUR');
    assert.equal(read.optin, true);

    const finish = await call(url(), {
      method: 'POST',
      auth: s.admin,
      form: { action_nonce, finished: '1', currentTab: '4', completedTabs: '0,1,3' },
    });
    assert.equal(finish.status, 200);
    const done = (await call(url(), { auth: s.admin })).body.settings;
    assert.equal(done.finished, true);
    assert.equal(done.begun, true);
    assert.deepEqual(done.completed_tabs, [0, 1, 3, 4]);
  });

  test('missing or wrong nonce is a parameter error, before the permission check', async () => {
    const missing = await call(url(), { method: 'POST', auth: s.admin, body: { currency: 'USD' } });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    assert.deepEqual(missing.body.data.params, ['action_nonce']);
    for (const auth of [s.admin, undefined]) {
      const wrong = await call(url(), { method: 'POST', auth, body: { action_nonce: '0123456789' } });
      assert.equal(wrong.status, 400);
      assert.equal(wrong.body.code, 'rest_invalid_param');
      assert.deepEqual(wrong.body.data.params, { action_nonce: 'Invalid nonce.' });
      assert.equal(wrong.body.data.details.action_nonce.code, 'tec_invalid_nonce');
    }
    // Another user's nonce does not verify for this one.
    const other = await s.userAuth('administrator');
    const foreign = await call(url(), { method: 'POST', auth: other, body: { action_nonce: await nonceOf(s.admin) } });
    assert.equal(foreign.status, 400);
  });

  test('a valid nonce without manage_options is 403; GET is 401 anonymous, 403 organizer', async () => {
    // An organizer cannot read a nonce, so forge the situation: an administrator demoted after reading one.
    const auth = await s.userAuth('administrator', 'demoted');
    const nonce = await nonceOf(auth);
    await s.db.prepare("UPDATE users SET role = 'organizer' WHERE login = 'demoted'").run();
    const r = await call(url(), { method: 'POST', auth, body: { action_nonce: nonce } });
    assert.equal(r.status, 403);
    assert.equal(r.body.code, 'rest_forbidden');
    assert.equal((await call(url())).status, 401);
    assert.equal((await call(url(), { auth })).status, 403);
  });

  test('bad wizard fields are refused together and change nothing', async () => {
    const before = await option('tec_tickets_onboarding_wizard');
    const action_nonce = await nonceOf(s.admin);
    const r = await call(url(), {
      method: 'POST',
      auth: s.admin,
      body: { action_nonce, currency: 'XXQ', timezone: 'Mars/Olympus', currentTab: 99, event: { title: '', start: 'soon', end: 'later' } },
    });
    assert.equal(r.status, 400);
    assert.equal(r.body.code, 'rest_invalid_param');
    assert.deepEqual(Object.keys(r.body.data.params).sort(), ['currency', 'currentTab', 'event', 'timezone']);
    assert.equal(await option('tec_tickets_onboarding_wizard'), before);
    const pay = await call(url(), { method: 'POST', auth: s.admin, body: { action_nonce, paymentOption: '<script>' } });
    assert.equal(pay.status, 400);
    assert.equal(await option('tec_tickets_onboarding_wizard'), before);
  });

  test('the index lists action_nonce as the one required argument', async () => {
    const r = await call(`${s.root}tickets-onboarding`);
    assert.equal(r.status, 200);
    const post = r.body.routes['/tickets-onboarding/wizard'].endpoints.find((e: { methods: string[] }) => e.methods.includes('POST'));
    assert.equal(post.args.action_nonce.required, true);
    assert.equal(post.args.action_nonce.type, 'string');
  });
});
