import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
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
});
