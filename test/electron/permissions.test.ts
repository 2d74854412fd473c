import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import type { PermissionCheckHandlerHandlerDetails } from 'electron';
import { startFakeShell } from './shell-fixture.ts';

const OWN_URL = 'app://kiosk/index.html';
const OWN_ORIGIN = 'app://kiosk';

async function handlers(t: { onTestFinished(fn: () => unknown): void }) {
  const { state } = await startFakeShell(t);
  const request = state.permissionRequestHandler;
  const check = state.permissionCheckHandler;
  assert.ok(request, 'setPermissionRequestHandler was called with a handler');
  assert.ok(check, 'setPermissionCheckHandler was called with a handler');
  const ask = (permission: string, details: Record<string, unknown>) => {
    let answer: boolean | undefined;
    request({}, permission, (granted) => (answer = granted), { isMainFrame: true, requestingUrl: OWN_URL, ...details });
    assert.notEqual(answer, undefined, 'the handler always answers');
    return answer;
  };
  const probe = (permission: string, origin: string, details: Partial<PermissionCheckHandlerHandlerDetails> = {}) =>
    check({}, permission, origin, { isMainFrame: true, requestingUrl: `${origin}/`, ...details });
  return { ask, probe };
}

describe('permission request handler', () => {
  test('grants the camera to the app origin', async (t) => {
    const { ask } = await handlers(t);
    assert.equal(ask('media', { mediaTypes: ['video'], securityOrigin: OWN_ORIGIN }), true);
    assert.equal(ask('media', { mediaTypes: ['video'] }), true);
  });

  test('refuses the camera to any other origin, even when it claims ours', async (t) => {
    const { ask } = await handlers(t);
    assert.equal(ask('media', { mediaTypes: ['video'], requestingUrl: 'https://evil.example/' }), false);
    assert.equal(ask('media', { mediaTypes: ['video'], requestingUrl: 'http://127.0.0.1:8080/kiosk/' }), false);
    assert.equal(ask('media', { mediaTypes: ['video'], requestingUrl: 'file:///etc/passwd' }), false);
    assert.equal(ask('media', { mediaTypes: ['video'], requestingUrl: 'app://other/index.html' }), false);
    assert.equal(ask('media', { mediaTypes: ['video'], securityOrigin: 'https://evil.example' }), false);
  });

  test('grants local network access to the app origin only, so a LAN door server is reachable', async (t) => {
    const { ask } = await handlers(t);
    for (const permission of ['local-network-access', 'local-network', 'loopback-network']) {
      assert.equal(ask(permission, {}), true, permission);
      assert.equal(ask(permission, { requestingUrl: 'https://evil.example/' }), false, permission);
      assert.equal(ask(permission, { isMainFrame: false }), false, `${permission} from a sub-frame`);
    }
  });

  test('refuses the camera to a sub-frame, even one on the app origin', async (t) => {
    const { ask } = await handlers(t);
    assert.equal(ask('media', { mediaTypes: ['video'], isMainFrame: false }), false);
  });

  test('refuses the microphone and empty media requests', async (t) => {
    const { ask } = await handlers(t);
    assert.equal(ask('media', { mediaTypes: ['audio'] }), false);
    assert.equal(ask('media', { mediaTypes: ['video', 'audio'] }), false);
    assert.equal(ask('media', { mediaTypes: [] }), false);
    assert.equal(ask('media', {}), false);
  });

  test('refuses every other permission, for the app origin too', async (t) => {
    const { ask } = await handlers(t);
    for (const permission of [
      'geolocation',
      'notifications',
      'clipboard-read',
      'display-capture',
      'fullscreen',
      'openExternal',
      'midiSysex',
      'pointerLock',
      'keyboardLock',
      'window-management',
      'fileSystem',
      'unknown',
    ]) {
      assert.equal(ask(permission, { mediaTypes: ['video'] }), false, permission);
    }
  });
});

describe('permission check handler', () => {
  test('reports the camera as available to the app origin only', async (t) => {
    const { probe } = await handlers(t);
    assert.equal(probe('media', OWN_ORIGIN, { mediaType: 'video', securityOrigin: OWN_ORIGIN }), true);
    assert.equal(probe('media', 'https://evil.example', { mediaType: 'video' }), false);
    assert.equal(probe('media', OWN_ORIGIN, { mediaType: 'video', embeddingOrigin: 'https://evil.example' }), false);
    assert.equal(probe('media', OWN_ORIGIN, { mediaType: 'audio' }), false);
    assert.equal(probe('media', OWN_ORIGIN, { mediaType: 'unknown' }), false);
  });

  test('reports local network access for the app origin only', async (t) => {
    const { probe } = await handlers(t);
    assert.equal(probe('local-network-access', OWN_ORIGIN), true);
    assert.equal(probe('local-network', OWN_ORIGIN), true);
    assert.equal(probe('local-network', 'https://evil.example'), false);
    assert.equal(probe('loopback-network', OWN_ORIGIN, { embeddingOrigin: 'https://evil.example' }), false);
  });

  test('reports everything else as denied', async (t) => {
    const { probe } = await handlers(t);
    for (const permission of ['geolocation', 'notifications', 'clipboard-read', 'hid', 'serial', 'usb', 'openExternal', 'fullscreen']) {
      assert.equal(probe(permission, OWN_ORIGIN, { mediaType: 'video' }), false, permission);
    }
  });
});
