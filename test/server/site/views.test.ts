import { afterAll, beforeAll, describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { call, startTestServer, type TestServer } from '../../helpers/server.ts';
import { createEvent, createLinked, updateEvent } from './fixtures.ts';

let s: TestServer;
let jazz: { id: number; url: string };

const html = (params: Record<string, unknown>, method = 'POST') =>
  method === 'GET'
    ? call(`${s.root}evt/views/v2/html?${new URLSearchParams(params as Record<string, string>)}`)
    : call(`${s.root}evt/views/v2/html`, { method, body: params });

function viewData(text: string): Record<string, unknown> {
  const m = /<script type="application\/json" data-js="tribe-events-view-data">(.*?)<\/script>/.exec(text);
  assert.ok(m, 'view data present');
  return JSON.parse(m[1]) as Record<string, unknown>;
}

beforeAll(async () => {
  s = await startTestServer();
  const v = await createLinked(s, 'venue', { venue: 'Club <b>X</b>' });
  jazz = await createEvent(s, {
    title: 'Jazz </script><script>alert(1)</script>',
    start_date: '2030-03-10 20:00:00',
    end_date: '2030-03-12 01:00:00',
    venue: { id: v.id },
  });
  await updateEvent(s, jazz.id, { translation_language: 'et', title: 'Džäss' });
  await createEvent(s, { title: 'Folk', start_date: '2030-03-20 18:00:00', end_date: '2030-03-20 20:00:00' });
  await createEvent(s, { title: 'April', start_date: '2030-04-02 18:00:00', end_date: '2030-04-02 20:00:00' });
  await createEvent(s, { title: 'Draft', status: 'draft', start_date: '2030-03-15 18:00:00', end_date: '2030-03-15 20:00:00' });
});
afterAll(() => s.close());

describe('POST|GET /evt/views/v2/html', () => {
  test('the list view: public upcoming events in order, escaped, with TEC container and view data', async () => {
    const r = await html({ url: `${s.base}/events/list/` });
    assert.equal(r.status, 200);
    assert.equal(r.headers.get('content-type'), 'text/html; charset=UTF-8');
    assert.ok(
      r.text.startsWith(
        `<div class="tribe-common tribe-events tribe-events-view tribe-events-view--list" data-js="tribe-events-view" data-view-rest-url="${s.root}evt/views/v2/html" data-view-rest-method="POST" data-view-manage-url="1">`,
      ),
    );
    const titles = [...r.text.matchAll(/class="tribe-events-calendar-list__event-title-link">([^<]*)</g)].map((m) => m[1]);
    assert.deepEqual(titles, ['Jazz &lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;', 'Folk', 'April']);
    assert.ok(r.text.includes('<address class="tribe-events-calendar-list__event-venue">Club &lt;b&gt;X&lt;/b&gt;</address>'));
    assert.equal([...r.text.matchAll(/<\/script>/g)].length, 1, 'a title cannot close the view-data script');
    const data = viewData(r.text);
    assert.equal(data.slug, 'list');
    assert.equal(data.url, `${s.base}/events/list/`);
    assert.equal(data.should_manage_url, true);
  });

  test('GET works too; tribe-bar-date and search narrow the list', async () => {
    const r = await html({ url: '/events/list/?tribe-bar-date=2030-03-15' }, 'GET');
    assert.equal(r.status, 200);
    const titles = [...r.text.matchAll(/title-link">([^<]*)</g)].map((m) => m[1]);
    assert.deepEqual(titles, ['Folk', 'April']);
    const q = await html({ url: '/events/list/', view_data: { 'tribe-bar-search': 'folk' } });
    assert.deepEqual(
      [...q.text.matchAll(/title-link">([^<]*)</g)].map((m) => m[1]),
      ['Folk'],
    );
    assert.ok(q.text.includes('Search results for folk'));
  });

  test('list paging: 12 per page with next/prev view URLs', async () => {
    for (let i = 0; i < 10; i++)
      await createEvent(s, {
        title: `More ${i}`,
        start_date: `2030-05-${String(i + 1).padStart(2, '0')} 10:00:00`,
        end_date: `2030-05-${String(i + 1).padStart(2, '0')} 11:00:00`,
      });
    const one = await html({ url: '/events/list/' });
    assert.equal([...one.text.matchAll(/tribe-events-calendar-list__event-row/g)].length, 12);
    assert.equal(viewData(one.text).next_url, `${s.base}/events/list/page/2/`);
    const two = await html({ url: '/events/list/page/2/' });
    assert.equal([...two.text.matchAll(/tribe-events-calendar-list__event-row/g)].length, 1);
    assert.equal(viewData(two.text).prev_url, `${s.base}/events/list/`);
    assert.equal(viewData(two.text).next_url, '');
  });

  test('the month view: a Monday-first grid, multi-day events on every day they cover', async () => {
    const r = await html({ url: `${s.base}/events/month/2030-03/` });
    assert.equal(r.status, 200);
    assert.ok(r.text.includes('tribe-events-view--month'));
    assert.ok(r.text.includes('<h2 class="tribe-events-header__title">March 2030</h2>'));
    assert.ok(r.text.includes('<thead><tr><th scope="col">Mon</th>'));
    // March 2030 starts on a Friday: the grid opens on Monday 25 February.
    assert.ok(
      r.text.includes(
        '<td class="tribe-events-calendar-month__day tribe-events-calendar-month__day--other-month"><time datetime="2030-02-25">25</time></td>',
      ),
    );
    for (const day of ['2030-03-10', '2030-03-11', '2030-03-12']) {
      assert.match(
        r.text,
        new RegExp(
          `<time datetime="${day}">\\d+</time><ul><li class="tribe-events-calendar-month__calendar-event"><a href="${jazz.url}">Jazz &lt;/script&gt;`,
        ),
        day,
      );
    }
    assert.ok(!r.text.includes('>April<'));
    assert.ok(!r.text.includes('Draft'));
    const data = viewData(r.text);
    assert.deepEqual(
      [data.url, data.prev_url, data.next_url],
      [`${s.base}/events/month/2030-03/`, `${s.base}/events/month/2030-02/`, `${s.base}/events/month/2030-04/`],
    );
  });

  test('view_data and view choose the view; the URL language segment picks the text', async () => {
    const m = await html({ url: '/et/events/', view_data: { eventDisplay: 'month', 'tribe-bar-date': '2030-03-11' } });
    assert.equal(m.status, 200);
    assert.ok(m.text.includes('märts 2030'));
    assert.ok(m.text.includes(`<a href="${jazz.url.replace(s.base, `${s.base}/et`)}">Džäss</a>`));
    const v = await html({ url: '/events/?eventDisplay=list', view: 'month' });
    assert.ok(v.text.includes('tribe-events-view--month'));
  });

  test('bad input: missing url 400, unknown views and malformed dates or pages 400 Invalid parameter', async () => {
    const missing = await html({});
    assert.equal(missing.status, 400);
    assert.deepEqual(missing.body, {
      code: 'rest_missing_callback_param',
      message: 'Missing parameter(s): url',
      data: { status: 400, params: ['url'] },
    });
    const cases: [Record<string, unknown>, string][] = [
      [{ url: '/events/', view: 'day' }, 'view'],
      [{ url: '/events/', view_data: { eventDisplay: 'photo' } }, 'view_data'],
      [{ url: '/events/month/2030-13/' }, 'url'],
      [{ url: '/events/list/page/zero/' }, 'url'],
      [{ url: '/events/list/?tribe-bar-date=tomorrow' }, 'url'],
      [{ url: '/events/', view_data: { 'tribe-bar-date': '2030-02-30' } }, 'view_data'],
      [{ url: '/events/', view_data: 'x' }, 'view_data'],
      [{ url: ['a'] }, 'url'],
    ];
    for (const [body, param] of cases) {
      const r = await html(body);
      assert.equal(r.status, 400, JSON.stringify(body));
      assert.equal(r.body.code, 'rest_invalid_param');
      assert.deepEqual(r.body.data.params, { [param]: 'Invalid parameter.' }, JSON.stringify(body));
    }
  });

  test('other methods are 404 rest_no_route', async () => {
    const r = await call(`${s.root}evt/views/v2/html`, { method: 'DELETE' });
    assert.equal(r.status, 404);
    assert.equal(r.body.code, 'rest_no_route');
  });
});
