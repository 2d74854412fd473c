import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { getDoorstep, ipcChannelName } from '../../shared/ipc.ts';
import { dispatchIpc } from '../../electron/ipc.ts';
import { createDoorstepApi, exposeDoorstepApi } from '../../electron/preload-api.ts';
import { APP_FRAME } from './fake-electron.ts';
import { startFakeShell } from './shell-fixture.ts';

type Invoke = (channel: string, ...args: unknown[]) => Promise<unknown>;

async function shell(
  t: { onTestFinished(fn: () => unknown): void },
  fake: Parameters<typeof startFakeShell>[1] = {},
  options: Parameters<typeof startFakeShell>[2] = {},
) {
  const started = await startFakeShell(t, fake, options);
  const invokeFrom = (frame: Parameters<typeof started.preload>[0]): Invoke => started.preload(frame).ipcRenderer.invoke;
  // The page sees what the preload put on its window: read it back the way the renderer does.
  exposeDoorstepApi(started.preload());
  const api = getDoorstep(started.state.mainWorld);
  assert.ok(api, 'the preload exposed the bridge');
  return { ...started, invokeFrom, api };
}

describe('IPC sender check', () => {
  test("answers the app's own top frame", async (t) => {
    const { invokeFrom } = await shell(t);
    const result = await invokeFrom(APP_FRAME)(ipcChannelName('setFullScreen'), { fullScreen: false });
    assert.deepEqual(result, { ok: true, value: { fullScreen: false } });
  });

  test('refuses a foreign frame, a sub-frame and a vanished frame, and logs each refusal', async (t) => {
    const { invokeFrom, state, logged } = await shell(t);
    const frames = [
      { url: 'https://evil.example/', parent: null },
      { url: 'http://127.0.0.1:8080/kiosk/', parent: null },
      { url: 'file:///work/renderer/dist/index.html', parent: null },
      { url: 'app://kiosk/index.html', parent: { url: 'app://kiosk/index.html' } },
      null,
    ];
    for (const frame of frames) {
      const result = await invokeFrom(frame)(ipcChannelName('setFullScreen'), { fullScreen: false });
      assert.deepEqual(result, { ok: false, error: { code: 'forbidden_sender', message: 'This caller may not use the kiosk shell.' } });
    }
    assert.equal(state.windows[0].kiosk, true, 'no refused call had an effect');
    assert.equal(logged.length, frames.length);
  });
});

describe('IPC payload validation', () => {
  test('Zod rejects wrong types, unknown keys and missing arguments before any handler runs', async (t) => {
    const { invokeFrom, state } = await shell(t);
    const invoke = invokeFrom(APP_FRAME);
    const channel = ipcChannelName('setFullScreen');
    for (const args of [[{ fullScreen: 'no' }], [{}], [{ fullScreen: false, extra: 1 }], [null], ['false'], [], [{ fullScreen: false }, 2]]) {
      const result = (await invoke(channel, ...args)) as { ok: boolean; error?: { code: string } };
      assert.equal(result.ok, false, JSON.stringify(args));
      assert.equal(result.error?.code, 'invalid_request', JSON.stringify(args));
    }
    assert.equal(state.windows[0].kiosk, true);
    const quit = (await invoke(ipcChannelName('quit'), { pendingScans: -1 })) as { ok: boolean };
    assert.equal(quit.ok, false);
    assert.equal(state.dialogs.length, 0);
  });

  test('a handler answer that breaks its schema becomes invalid_response, a throw becomes failed', async () => {
    const event = { senderFrame: APP_FRAME };
    const bad = await dispatchIpc('setFullScreen', () => ({ fullScreen: 'yes' }) as never, event, [{ fullScreen: true }]);
    assert.equal(bad.ok === false && bad.error.code, 'invalid_response');
    const thrown = await dispatchIpc(
      'setFullScreen',
      () => {
        throw new Error('window gone');
      },
      event,
      [{ fullScreen: true }],
    );
    assert.deepEqual(thrown, { ok: false, error: { code: 'failed', message: 'window gone' } });
  });
});

describe('IPC channels end to end (preload API -> fake ipcMain -> handlers)', () => {
  test('getAppInfo gives versions and a device ID that survives a restart', async (t) => {
    const first = await shell(t);
    const info = await first.api.getAppInfo();
    assert.equal(info.appVersion, '0.1.0');
    assert.equal(info.electronVersion, '41.7.1');
    assert.equal(info.platform, 'linux');
    assert.equal(info.deviceName, 'door-1');
    assert.match(info.deviceId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    const again = await shell(t, { userData: first.state.options.userData });
    assert.equal((await again.api.getAppInfo()).deviceId, info.deviceId);
    const elsewhere = await shell(t);
    assert.notEqual((await elsewhere.api.getAppInfo()).deviceId, info.deviceId);
  });

  test('setFullScreen leaves and re-enters kiosk mode', async (t) => {
    const { api, state } = await shell(t);
    assert.deepEqual(await api.setFullScreen({ fullScreen: false }), { fullScreen: false });
    assert.equal(state.windows[0].kiosk, false);
    assert.deepEqual(await api.setFullScreen({ fullScreen: true }), { fullScreen: true });
    assert.equal(state.windows[0].kiosk, true);
  });

  test('quit asks first, over the kiosk window, and quits only when confirmed', async (t) => {
    const cancelled = await shell(t, { dialogResponse: 0 });
    assert.deepEqual(await cancelled.api.quit({ pendingScans: 3 }), { quitting: false });
    assert.equal(cancelled.state.quitCount, 0);
    assert.equal(cancelled.state.dialogs[0].window, cancelled.state.windows[0]);
    assert.match(String(cancelled.state.dialogs[0].options.detail), /3 scans are not synced yet/);
    const confirmed = await shell(t, { dialogResponse: 1 });
    assert.deepEqual(await confirmed.api.quit(), { quitting: true });
    assert.equal(confirmed.state.quitCount, 1);
  });

  test('requestCameraAccess follows the OS: prompt on macOS, read on Windows, unknown on Linux', async (t) => {
    const mac = await shell(t, { cameraStatus: 'not-determined', askForMediaAccessResult: false }, { platform: 'darwin' });
    assert.deepEqual(await mac.api.requestCameraAccess(), { status: 'denied' });
    assert.equal(mac.state.mediaAccessAsked, 1);
    const win = await shell(t, { cameraStatus: 'denied' }, { platform: 'win32' });
    assert.deepEqual(await win.api.requestCameraAccess(), { status: 'denied' });
    assert.equal(win.state.mediaAccessAsked, 0);
    const linux = await shell(t, { cameraStatus: 'denied' }, { platform: 'linux' });
    assert.deepEqual(await linux.api.requestCameraAccess(), { status: 'unknown' });
  });

  test('a refused call rejects in the page with the error code, not a stack trace', async (t) => {
    const { preload } = await shell(t);
    const foreign = createDoorstepApi(preload({ url: 'https://evil.example/', parent: null }).ipcRenderer);
    await assert.rejects(foreign.getAppInfo(), (error: Error) => {
      assert.equal(error.message, 'forbidden_sender: This caller may not use the kiosk shell.');
      return true;
    });
  });
});
