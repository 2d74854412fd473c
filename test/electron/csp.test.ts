import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import type { HeadersReceivedResponse } from 'electron';
import { KIOSK_CSP } from '../../electron/csp.ts';
import { headersDetails } from './fake-electron.ts';
import { startFakeShell } from './shell-fixture.ts';

function directives(policy: string): Map<string, string[]> {
  return new Map(
    policy
      .split(';')
      .map((part) => part.trim().split(/\s+/))
      .filter((parts) => parts[0])
      .map(([name, ...values]) => [name, values]),
  );
}

async function headersFor(t: { onTestFinished(fn: () => unknown): void }, url: string, responseHeaders: Record<string, string[]>) {
  const { state } = await startFakeShell(t);
  assert.ok(state.headersListener, 'onHeadersReceived has a listener');
  let answer: HeadersReceivedResponse | undefined;
  state.headersListener(headersDetails(url, responseHeaders), (response) => (answer = response));
  assert.ok(answer, 'the listener answered');
  return answer;
}

describe('Content-Security-Policy', () => {
  test('is set on the app pages, replacing whatever the response carried', async (t) => {
    const answer = await headersFor(t, 'app://kiosk/index.html', {
      'content-security-policy': ["script-src * 'unsafe-eval'"],
      'Content-Type': ['text/html'],
    });
    assert.deepEqual(answer.responseHeaders, { 'Content-Type': ['text/html'], 'Content-Security-Policy': [KIOSK_CSP] });
  });

  test('leaves responses from the door server alone', async (t) => {
    const answer = await headersFor(t, 'http://127.0.0.1:8080/en/wp-json/tribe/tickets/v1/attendees', { 'Content-Type': ['application/json'] });
    assert.deepEqual(answer, {});
  });

  test('allows scripts only from the app itself, and fetches to any http(s) door server', () => {
    const policy = directives(KIOSK_CSP);
    assert.deepEqual(policy.get('default-src'), ["'none'"]);
    assert.deepEqual(policy.get('script-src'), ["'self'"]);
    assert.deepEqual(policy.get('object-src'), ["'none'"]);
    assert.deepEqual(policy.get('base-uri'), ["'none'"]);
    assert.deepEqual(policy.get('frame-ancestors'), ["'none'"]);
    assert.deepEqual(policy.get('connect-src'), ["'self'", 'http:', 'https:']);
    assert.doesNotMatch(KIOSK_CSP, /unsafe-inline|unsafe-eval|wasm-unsafe-eval/);
  });
});
