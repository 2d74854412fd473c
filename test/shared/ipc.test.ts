import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { getDoorstep, ipcChannelName, ipcChannels, ipcMethods } from '../../shared/ipc.ts';

describe('shared IPC channel map', () => {
  test('getDoorstep is null in a plain browser and for anything that is not the full bridge', () => {
    assert.equal(getDoorstep({}), null);
    assert.equal(getDoorstep(globalThis), null);
    assert.equal(getDoorstep({ doorstep: null }), null);
    assert.equal(getDoorstep({ doorstep: 'x' }), null);
    assert.equal(getDoorstep({ doorstep: { getAppInfo: async () => ({}) } }), null, 'a partial bridge is not trusted');
  });

  test('getDoorstep returns the bridge when every method is there', () => {
    const bridge = Object.fromEntries(ipcMethods.map((method) => [method, async () => ({})]));
    assert.equal(getDoorstep({ doorstep: bridge }), bridge);
  });

  test('channel names are prefixed and unique', () => {
    const names = ipcMethods.map(ipcChannelName);
    assert.equal(new Set(names).size, names.length);
    for (const name of names) assert.match(name, /^doorstep:[a-zA-Z]+$/);
  });

  test('requests are strict: unknown keys are refused', () => {
    assert.equal(ipcChannels.setFullScreen.request.safeParse({ fullScreen: true, path: '/etc' }).success, false);
    assert.equal(ipcChannels.getAppInfo.request.safeParse({ url: 'https://x' }).success, false);
    assert.equal(ipcChannels.quit.request.safeParse({ pendingScans: 2 }).success, true);
    assert.equal(ipcChannels.quit.request.safeParse({ pendingScans: 1.5 }).success, false);
  });
});
