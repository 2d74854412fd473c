import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { APP_ENTRY_URL } from '../../electron/app-origin.ts';
import { ipcChannelName, ipcMethods } from '../../shared/ipc.ts';
import { startFakeShell } from './shell-fixture.ts';

describe('startShell (main process against the fake electron)', () => {
  test('the first instance takes the lock and opens one kiosk window on app://kiosk', async (t) => {
    const { state, started } = await startFakeShell(t);
    assert.equal(started.primary, true);
    assert.equal(state.windows.length, 1);
    const [window] = state.windows;
    assert.deepEqual(window.loadedUrls, [APP_ENTRY_URL]);
    assert.equal(window.menuRemoved, true);
    assert.equal(window.visible, false, 'hidden until ready-to-show');
    window.emit('ready-to-show');
    assert.equal(window.visible, true);
    assert.equal(state.sandboxEnabled, true);
    assert.deepEqual(state.powerSaveBlockers, ['prevent-display-sleep']);
    assert.deepEqual([...state.ipcHandlers.keys()].sort(), ipcMethods.map(ipcChannelName).sort());
  });

  test('sandbox and the privileged scheme are set before ready, the lock before any window', async (t) => {
    const { state } = await startFakeShell(t);
    const order = (call: string) => state.calls.indexOf(call);
    assert.ok(order('app.enableSandbox') >= 0 && order('app.enableSandbox') < order('app.whenReady'));
    assert.ok(order('protocol.registerSchemesAsPrivileged') < order('app.whenReady'));
    assert.ok(order('app.requestSingleInstanceLock') < order('new BrowserWindow'));
    const [scheme] = state.privilegedSchemes;
    assert.equal(scheme.scheme, 'app');
    assert.equal(scheme.privileges?.standard, true);
    assert.equal(scheme.privileges?.secure, true);
    assert.notEqual(scheme.privileges?.bypassCSP, true);
  });

  test('a second instance quits at once and touches nothing', async (t) => {
    const { state, started, app } = await startFakeShell(t, { lockGranted: false });
    assert.equal(started.primary, false);
    assert.equal(state.quitCount, 1);
    assert.equal(state.windows.length, 0);
    assert.equal(state.ipcHandlers.size, 0);
    assert.equal(state.ready, false);
    assert.equal(app.count('second-instance'), 0);
  });

  test('when another instance starts, the existing window is restored, shown and focused', async (t) => {
    const { state, app } = await startFakeShell(t);
    const [window] = state.windows;
    window.minimized = true;
    app.emit('second-instance', {}, ['electron', '.'], '/tmp', {});
    assert.equal(window.minimized, false);
    assert.equal(window.visible, true);
    assert.equal(window.focusCount, 1);
    assert.equal(state.windows.length, 1, 'no second window');
  });

  test('closing the kiosk window quits the app', async (t) => {
    const { state } = await startFakeShell(t);
    state.windows[0].close();
    assert.equal(state.quitCount, 1);
  });

  test('dev tools follow the option', async (t) => {
    const off = await startFakeShell(t, {}, { devTools: false });
    assert.equal(off.state.windows[0].options.webPreferences?.devTools, false);
    const on = await startFakeShell(t, {}, { devTools: true });
    assert.equal(on.state.windows[0].options.webPreferences?.devTools, true);
  });
});
