import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';

const NS = 'translation/v1';
const GOOD = '<wpml-config>\n  <custom-fields>\n    <custom-field action="translate">subtitle</custom-field>\n  </custom-fields>\n</wpml-config>\n';

describe('translation/v1 custom XML config', () => {
  let s: TestServer;
  const url = (r: string) => `${s.root}${NS}${r}`;
  beforeAll(async () => {
    s = await startTestServer();
  });
  afterAll(() => s.close());

  test('validate answers [] for a valid config and the first error with line and column otherwise', async () => {
    const okRes = await call(url('/custom-xml-config/validate'), { method: 'POST', auth: s.admin, body: { content: GOOD } });
    assert.equal(okRes.status, 200);
    assert.deepEqual(okRes.body, []);
    const bad = await call(url('/custom-xml-config/validate'), {
      method: 'POST',
      auth: s.admin,
      body: { content: '<wpml-config>\n  <custom-fields>\n  </custom-field>\n</wpml-config>' },
    });
    assert.equal(bad.status, 200);
    assert.deepEqual(bad.body, [
      { level: 3, code: 76, column: 3, message: 'Opening and ending tag mismatch: custom-fields line 2 and custom-field', file: '', line: 3 },
    ]);
    const entity = await call(url('/custom-xml-config/validate'), {
      method: 'POST',
      auth: s.admin,
      form: { content: '<wpml-config>&xxe;</wpml-config>' },
    });
    assert.equal(entity.body[0].message, "Entity 'xxe' not defined");
    assert.deepEqual([entity.body[0].line, entity.body[0].column], [1, 14]);
    const root = await call(url('/custom-xml-config/validate'), {
      method: 'POST',
      auth: s.admin,
      body: { content: '<?xml version="1.0"?>\n<config/>' },
    });
    assert.deepEqual(root.body, [
      {
        level: 2,
        code: 1845,
        column: 1,
        message: "Element 'config': No matching global declaration available for the validation root.",
        file: '',
        line: 2,
      },
    ]);
  });

  test('a stored config reads back; malformed XML is refused with its position and changes nothing', async () => {
    assert.deepEqual((await call(url('/custom-xml-config'), { auth: s.admin })).body, '');
    const put = await call(url('/custom-xml-config'), { method: 'POST', auth: s.admin, body: { content: GOOD } });
    assert.equal(put.status, 200);
    assert.equal(put.body, GOOD);
    const bad = await call(url('/custom-xml-config'), {
      method: 'POST',
      auth: s.admin,
      body: { content: '<wpml-config>\n<a b="1" b="2"/></wpml-config>' },
    });
    assert.equal(bad.status, 400);
    assert.equal(bad.body.code, 'invalid_xml');
    assert.equal(bad.body.data.line, 2);
    assert.equal(bad.body.data.column, 10);
    assert.equal(bad.body.data.errors[0].message, 'Attribute b redefined');
    assert.equal((await call(url('/custom-xml-config'), { auth: s.admin })).body, GOOD);
    const cleared = await call(url('/custom-xml-config'), { method: 'POST', auth: s.admin, body: { content: '' } });
    assert.equal(cleared.body, '');
    assert.equal((await call(url('/custom-xml-config'), { auth: s.admin })).body, '');
  });

  test('missing, non-string and oversized content are parameter errors', async () => {
    const missing = await call(url('/custom-xml-config/validate'), { method: 'POST', auth: s.admin, body: {} });
    assert.equal(missing.status, 400);
    assert.equal(missing.body.code, 'rest_missing_callback_param');
    assert.deepEqual(missing.body.data.params, ['content']);
    const wrong = await call(url('/custom-xml-config'), { method: 'POST', auth: s.admin, body: { content: { a: 1 } } });
    assert.equal(wrong.status, 400);
    assert.equal(wrong.body.data.params.content, 'content is not of type string.');
    const big = await call(url('/custom-xml-config/validate'), {
      method: 'POST',
      auth: s.admin,
      body: { content: `<wpml-config>${'x'.repeat(300 * 1024)}</wpml-config>` },
    });
    assert.equal(big.status, 400);
    assert.equal(big.body.code, 'rest_invalid_param');
  });

  test('permissions: anonymous 401, organizer 403; the index shows only the language argument', async () => {
    const organizer = await s.userAuth('organizer');
    for (const [method, r] of [
      ['GET', '/custom-xml-config'],
      ['POST', '/custom-xml-config'],
      ['POST', '/custom-xml-config/validate'],
    ]) {
      const body = method === 'GET' ? undefined : { content: GOOD };
      assert.equal((await call(url(r), { method, body })).status, 401);
      assert.equal((await call(url(r), { method, auth: organizer, body })).status, 403);
    }
    const index = await call(`${s.root}${NS}`);
    for (const e of index.body.routes['/translation/v1/custom-xml-config'].endpoints) assert.deepEqual(Object.keys(e.args), ['translation_language']);
  });
});
