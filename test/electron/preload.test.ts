import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { ipcChannelName, ipcChannels, ipcMethods } from '../../shared/ipc.ts';
import { BRIDGE_KEY, createDoorstepApi, exposeDoorstepApi } from '../../electron/preload-api.ts';
import { createFakeElectron } from './fake-electron.ts';

function recordingIpc(answer: unknown = { ok: true, value: { fullScreen: true } }) {
  const calls: { channel: string; args: unknown[] }[] = [];
  return {
    calls,
    ipcRenderer: {
      async invoke(channel: string, ...args: unknown[]) {
        calls.push({ channel, args });
        return answer;
      },
    },
  };
}

describe('preload bridge', () => {
  test("exposes exactly one key, `doorstep`, holding exactly the channel map's methods", () => {
    const { preload, state } = createFakeElectron({ userData: '/unused' });
    exposeDoorstepApi(preload());
    assert.deepEqual(Object.keys(state.mainWorld), [BRIDGE_KEY]);
    const api = state.mainWorld[BRIDGE_KEY] as Record<string, unknown>;
    assert.deepEqual(Object.keys(api).sort(), Object.keys(ipcChannels).sort());
    for (const method of ipcMethods) assert.equal(typeof api[method], 'function', method);
    assert.ok(Object.isFrozen(api));
  });

  test('each method invokes its own channel with the request, and an empty request for none', async () => {
    const { calls, ipcRenderer } = recordingIpc();
    const api = createDoorstepApi(ipcRenderer);
    await api.setFullScreen({ fullScreen: true });
    await api.getAppInfo();
    assert.deepEqual(calls, [
      { channel: ipcChannelName('setFullScreen'), args: [{ fullScreen: true }] },
      { channel: ipcChannelName('getAppInfo'), args: [{}] },
    ]);
  });

  test('unwraps answers and turns error envelopes and garbage into rejections', async () => {
    assert.deepEqual(await createDoorstepApi(recordingIpc().ipcRenderer).setFullScreen({ fullScreen: true }), { fullScreen: true });
    const refused = createDoorstepApi(recordingIpc({ ok: false, error: { code: 'invalid_request', message: 'bad' } }).ipcRenderer);
    await assert.rejects(refused.quit(), /^Error: invalid_request: bad$/);
    const garbage = createDoorstepApi(recordingIpc('<html>').ipcRenderer);
    await assert.rejects(garbage.quit(), /malformed answer/);
  });

  test('the bridge leaks no ipcRenderer, channel names or Node objects', () => {
    const { ipcRenderer } = recordingIpc();
    const api = createDoorstepApi(ipcRenderer) as unknown as Record<string, unknown>;
    for (const value of Object.values(api)) assert.equal(typeof value, 'function');
    assert.ok(!Object.values(api).includes(ipcRenderer));
    assert.ok(!Object.values(api).includes(ipcRenderer.invoke));
  });
});
