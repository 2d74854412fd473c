import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { setupWindow } from '../../electron/window.ts';
import { createFakeElectron } from './fake-electron.ts';
import { startFakeShell } from './shell-fixture.ts';

describe('kiosk window options', () => {
  test('the window actually created carries every security flag', async (t) => {
    const { state } = await startFakeShell(t, {}, { preloadPath: '/app/dist/electron/preload.cjs' });
    const options = state.windows[0].options;
    assert.equal(options.kiosk, true);
    assert.equal(options.fullscreen, true);
    assert.deepEqual(
      {
        preload: options.webPreferences?.preload,
        contextIsolation: options.webPreferences?.contextIsolation,
        sandbox: options.webPreferences?.sandbox,
        nodeIntegration: options.webPreferences?.nodeIntegration,
        nodeIntegrationInWorker: options.webPreferences?.nodeIntegrationInWorker,
        nodeIntegrationInSubFrames: options.webPreferences?.nodeIntegrationInSubFrames,
        webSecurity: options.webPreferences?.webSecurity,
        allowRunningInsecureContent: options.webPreferences?.allowRunningInsecureContent,
        experimentalFeatures: options.webPreferences?.experimentalFeatures,
        webviewTag: options.webPreferences?.webviewTag,
      },
      {
        preload: '/app/dist/electron/preload.cjs',
        contextIsolation: true,
        sandbox: true,
        nodeIntegration: false,
        nodeIntegrationInWorker: false,
        nodeIntegrationInSubFrames: false,
        webSecurity: true,
        allowRunningInsecureContent: false,
        experimentalFeatures: false,
        webviewTag: false,
      },
    );
    assert.equal(options.webPreferences && 'enableBlinkFeatures' in options.webPreferences, false);
    assert.equal(options.webPreferences?.disableBlinkFeatures, 'Auxclick');
  });

  test('there is one kiosk window: opening again returns it, and a closed window is forgotten', async () => {
    const fake = createFakeElectron({ userData: '/unused' });
    await fake.electron.app.whenReady();
    const windows = setupWindow(fake.electron.BrowserWindow, '/p.cjs', { devTools: false });
    assert.equal(windows.current(), null);
    const first = windows.open();
    assert.equal(windows.open(), first);
    assert.equal(fake.state.windows.length, 1);
    first.close();
    assert.equal(windows.current(), null);
    assert.notEqual(windows.open(), first);
    assert.equal(fake.state.windows.length, 2);
  });
});
