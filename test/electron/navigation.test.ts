import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { FakeEvent, FakeWebContents } from './fake-electron.ts';
import { startFakeShell } from './shell-fixture.ts';

describe('navigation and new windows', () => {
  test('the kiosk window cannot navigate away from app://kiosk', async (t) => {
    const { state } = await startFakeShell(t);
    const contents = state.windows[0].webContents;
    for (const url of [
      'https://evil.example/',
      'http://127.0.0.1:8080/kiosk/',
      'file:///etc/passwd',
      'app://other/index.html',
      'javascript:alert(1)',
      'data:text/html,hi',
      'app://user:pw@kiosk/',
    ]) {
      assert.equal(contents.attempt('will-navigate', url), true, `navigation to ${url} is stopped`);
      assert.equal(contents.attempt('will-redirect', url), true, `redirect to ${url} is stopped`);
    }
  });

  test("moving between the app's own pages is allowed", async (t) => {
    const { state } = await startFakeShell(t);
    const contents = state.windows[0].webContents;
    assert.equal(contents.attempt('will-navigate', 'app://kiosk/index.html'), false);
    assert.equal(contents.attempt('will-navigate', 'app://kiosk/index.html#pair=e30'), false);
  });

  test('new windows are denied, whatever the URL', async (t) => {
    const { state } = await startFakeShell(t);
    const handler = state.windows[0].webContents.windowOpenHandler;
    assert.ok(handler, 'setWindowOpenHandler was called');
    assert.deepEqual(handler({ url: 'https://evil.example/' }), { action: 'deny' });
    assert.deepEqual(handler({ url: 'app://kiosk/index.html' }), { action: 'deny' });
  });

  test('webviews are never attached', async (t) => {
    const { state } = await startFakeShell(t);
    assert.equal(state.windows[0].webContents.attempt('will-attach-webview'), true);
  });

  test('any web contents created later gets the same guards', async (t) => {
    const { app } = await startFakeShell(t);
    const later = new FakeWebContents();
    app.emit('web-contents-created', {}, later);
    assert.equal(later.attempt('will-navigate', 'https://evil.example/'), true);
    assert.deepEqual(later.windowOpenHandler?.({ url: 'https://evil.example/' }), { action: 'deny' });
  });

  test('downloads are refused before any save dialog', async (t) => {
    const { session } = await startFakeShell(t);
    const event = new FakeEvent();
    session.emit('will-download', event, { getFilename: () => 'attendees.csv' }, {});
    assert.equal(event.defaultPrevented, true);
  });
});
