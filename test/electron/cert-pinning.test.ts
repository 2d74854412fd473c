import { describe, test } from 'vitest';
import assert from 'node:assert/strict';
import { X509Certificate } from 'node:crypto';
import { CertificatePins, pemFingerprint, VERIFY_ACCEPT, VERIFY_DEFAULT, VERIFY_REFUSE } from '../../electron/cert-pinning.ts';
import { PairingPayload } from '../../shared/checkin/pairing.ts';
import { getDoorstep } from '../../shared/ipc.ts';
import { pinsFor, ShellPins } from '../../shared/ipc-pins.ts';
import { exposeDoorstepApi } from '../../electron/preload-api.ts';
import { tlsHandshake } from './fake-electron.ts';
import { startFakeShell } from './shell-fixture.ts';

/*
 * Issue 12 item 8: the Electron shell pins the door server's certificate from the pairing payload. Two
 * self-signed certificates for the same LAN address: the venue's (its fingerprint is in the pairing) and one
 * an attacker on the LAN would present. The shell cannot be launched here; the fake electron runs the real
 * shell code and plays Chromium's handshake through the verify proc the shell installs.
 */

const VENUE_PEM = `-----BEGIN CERTIFICATE-----
MIIBlTCCATqgAwIBAgIUO4Uz9COru+/xHVhz4PHm1jN8+dgwCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMMTkyLjE2OC4xLjIwMB4XDTI2MTEyNzAzNTI1OVoXDTM2MTEy
NDAzNTI1OVowFzEVMBMGA1UEAwwMMTkyLjE2OC4xLjIwMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEaipYNAZfA3C99duYptBlhBLvn7M6ZZE8Z16BVsmgedEZNjpO
TAx6vBAfJJcZ7dG+qV6/HCdhsP8CQAP5n7YLHaNkMGIwHQYDVR0OBBYEFEET2HUd
aDOcYrSQlMaRFSdodcUSMB8GA1UdIwQYMBaAFEET2HUdaDOcYrSQlMaRFSdodcUS
MA8GA1UdEwEB/wQFMAMBAf8wDwYDVR0RBAgwBocEwKgBFDAKBggqhkjOPQQDAgNJ
ADBGAiEAvNo00nxe55+1Luvy9JJUJEJA2Qei4SPRQ6MJSF8P014CIQCIZq0aoDRC
sfJxeqEdvPS4fiY3gLg2OMEHQiaLHjV1Fw==
-----END CERTIFICATE-----`;
const ATTACKER_PEM = `-----BEGIN CERTIFICATE-----
MIIBlTCCATqgAwIBAgIUIjilH4EmN7a6arQfDy7GjJiv6dswCgYIKoZIzj0EAwIw
FzEVMBMGA1UEAwwMMTkyLjE2OC4xLjIwMB4XDTI2MTEyNzAzNTI1OVoXDTM2MTEy
NDAzNTI1OVowFzEVMBMGA1UEAwwMMTkyLjE2OC4xLjIwMFkwEwYHKoZIzj0CAQYI
KoZIzj0DAQcDQgAEkTicWHPyElxHDjOqTY6OGhSd579hRRXjFI5lxeVSGWaalcbM
rVMKsinJ+an14gK//8qDryQNsDkmspsYTB3QiqNkMGIwHQYDVR0OBBYEFD/QwMy5
io1UmGEWlRWks9n/ah+dMB8GA1UdIwQYMBaAFD/QwMy5io1UmGEWlRWks9n/ah+d
MA8GA1UdEwEB/wQFMAMBAf8wDwYDVR0RBAgwBocEwKgBFDAKBggqhkjOPQQDAgNJ
ADBGAiEAtsaqdFO0VP8qEFtFfUm/xGwTliChgSCNhA3fvzViSxsCIQDa5DBzyjVo
hYXmtE4k6MJ/YG6BY+Rl4QC8+CutmZHT2Q==
-----END CERTIFICATE-----`;
/** As `tls-selfsigned` prints it and Node reports it: colon-separated upper-case hex of the DER's SHA-256. */
const VENUE_FP_COLONS = new X509Certificate(VENUE_PEM).fingerprint256;
const VENUE_FP = VENUE_FP_COLONS.replace(/:/g, '').toLowerCase();
const ATTACKER_FP = new X509Certificate(ATTACKER_PEM).fingerprint256.replace(/:/g, '').toLowerCase();
const VENUE_URL = 'https://192.168.1.20:8443/en/wp-json/';

async function shell(t: { onTestFinished(fn: () => unknown): void }) {
  const started = await startFakeShell(t);
  exposeDoorstepApi(started.preload());
  const api = getDoorstep(started.state.mainWorld);
  assert.ok(api);
  return { ...started, api };
}

describe('certificate pinning in the Electron shell', () => {
  test('the fingerprint is the SHA-256 of the certificate DER, as tls-selfsigned and Node compute it', () => {
    assert.equal(pemFingerprint(VENUE_PEM), VENUE_FP);
    assert.equal(pemFingerprint(`junk before\n${VENUE_PEM}\njunk after`), VENUE_FP);
    assert.notEqual(VENUE_FP, ATTACKER_FP);
    assert.equal(pemFingerprint('not a certificate'), null);
  });

  test("the shell installs a verify proc; with no pin every host gets Chromium's own verification", async (t) => {
    const { state } = await shell(t);
    assert.equal(typeof state.certificateVerifyProc, 'function');
    assert.equal(tlsHandshake(state, '192.168.1.20', VENUE_PEM, false), 'refused', 'a self-signed certificate is refused without a pin');
    assert.equal(tlsHandshake(state, 'tickets.example.org', ATTACKER_PEM, true), 'accepted', 'a publicly trusted one passes');
  });

  test('the renderer pins the paired server: its certificate is accepted, any other for that host refused, other hosts verified normally', async (t) => {
    const { state, api, logged } = await shell(t);
    const answer = await api.setServerPins({ pins: [{ url: VENUE_URL, fingerprint: VENUE_FP_COLONS }] });
    assert.deepEqual(answer, { hosts: ['192.168.1.20'] });
    assert.equal(tlsHandshake(state, '192.168.1.20', VENUE_PEM, false), 'accepted');
    assert.equal(tlsHandshake(state, '192.168.1.20', ATTACKER_PEM, false), 'refused', 'a MITM certificate on the LAN');
    assert.equal(tlsHandshake(state, '192.168.1.20', ATTACKER_PEM, true), 'refused', 'even one Chromium would trust: the pin decides');
    assert.equal(tlsHandshake(state, '192.168.1.21', VENUE_PEM, false), 'refused', 'the pin is for its host only');
    assert.equal(tlsHandshake(state, 'tickets.example.org', ATTACKER_PEM, true), 'accepted');
    assert.ok(logged.some((e) => (e as { event?: string; hostname?: string }).event === 'certificate_pin_refused'));
    // Changing pins drops Chromium's cached verdicts and open connections.
    assert.ok(state.certificateVerifyProcInstalls >= 2);
    assert.equal(state.closeAllConnectionsCount, 1);

    // A new pairing without a fingerprint (or unpairing) removes the pin.
    assert.deepEqual(await api.setServerPins({ pins: [] }), { hosts: [] });
    assert.equal(tlsHandshake(state, '192.168.1.20', VENUE_PEM, false), 'refused');
  });

  test('malformed pins are refused and change nothing: http addresses, bad fingerprints, too many', async (t) => {
    const { state, api } = await shell(t);
    await api.setServerPins({ pins: [{ url: VENUE_URL, fingerprint: VENUE_FP }] });
    const refused = async (request: unknown, code: RegExp) => {
      await assert.rejects((api.setServerPins as (r: unknown) => Promise<unknown>)(request), code);
      assert.equal(tlsHandshake(state, '192.168.1.20', VENUE_PEM, false), 'accepted', 'the earlier pin stands');
    };
    await refused({ pins: [{ url: 'http://192.168.1.20:8080/en/wp-json/', fingerprint: VENUE_FP }] }, /^Error: invalid_request/);
    await refused({ pins: [{ url: VENUE_URL, fingerprint: VENUE_FP.slice(2) }] }, /^Error: invalid_request/);
    await refused({ pins: [{ url: VENUE_URL, fingerprint: `${VENUE_FP.slice(0, 62)}zz` }] }, /^Error: invalid_request/);
    await refused({ pins: Array.from({ length: 5 }, () => ({ url: VENUE_URL, fingerprint: VENUE_FP })) }, /^Error: invalid_request/);
    await refused({ pins: [{ url: 'https://user:pw@192.168.1.20/', fingerprint: VENUE_FP }] }, /^Error: failed/);
    await refused({ pins: [{ url: VENUE_URL, fingerprint: VENUE_FP, extra: 1 }] }, /^Error: invalid_request/);
  });

  test('only the kiosk page may set pins', async (t) => {
    const { state, preload } = await shell(t);
    const foreign = preload({ url: 'https://evil.example/', parent: null }).ipcRenderer;
    const result = await foreign.invoke('doorstep:setServerPins', { pins: [{ url: 'https://evil.example/', fingerprint: ATTACKER_FP }] });
    assert.equal((result as { ok: boolean }).ok, false);
    assert.equal(tlsHandshake(state, 'evil.example', ATTACKER_PEM, false), 'refused');
  });

  test('the verify proc itself: pinned hosts by fingerprint (IPv6 and case too), the rest left to Chromium', () => {
    const pins = new CertificatePins();
    pins.replace([
      { url: 'https://[fd00::20]:8443/', fingerprint: VENUE_FP },
      { url: 'https://Door.Venue.Lan/', fingerprint: VENUE_FP_COLONS },
    ]);
    const req = (hostname: string, pem: string) => ({
      hostname,
      certificate: { data: pem },
      verificationResult: 'net::ERR_CERT_AUTHORITY_INVALID',
      errorCode: -202,
    });
    assert.equal(pins.verify(req('fd00::20', VENUE_PEM)), VERIFY_ACCEPT);
    assert.equal(pins.verify(req('[fd00::20]', VENUE_PEM)), VERIFY_ACCEPT);
    assert.equal(pins.verify(req('door.venue.lan', VENUE_PEM)), VERIFY_ACCEPT);
    assert.equal(pins.verify(req('door.venue.lan', ATTACKER_PEM)), VERIFY_REFUSE);
    assert.equal(pins.verify(req('door.venue.lan', 'garbage')), VERIFY_REFUSE);
    assert.equal(pins.verify(req('other.lan', ATTACKER_PEM)), VERIFY_DEFAULT);
  });
});

describe('the renderer passes pairings to the shell', () => {
  const venue = PairingPayload.parse({ url: VENUE_URL, api_key: 'k1', event_id: 10, fingerprint: VENUE_FP_COLONS });
  const other = PairingPayload.parse({ url: 'https://10.0.0.5/en/wp-json/', api_key: 'k2', event_id: 11, fingerprint: ATTACKER_FP });
  const plain = PairingPayload.parse({ url: 'http://10.0.0.6/en/wp-json/', api_key: 'k3', event_id: 12 });

  test('pinsFor: https pairings with a fingerprint only, once each', () => {
    assert.deepEqual(pinsFor([venue, null, plain, venue]), [{ url: VENUE_URL, fingerprint: VENUE_FP }]);
    assert.deepEqual(pinsFor([plain]), []);
  });

  test('a candidate is pinned beside the current pairing during the question, and dropped after unless it became current', async (t) => {
    const { state, api } = await shell(t);
    let current: PairingPayload | null = venue;
    const pins = new ShellPins(api, () => current);
    await pins.apply(current);
    assert.equal(tlsHandshake(state, '192.168.1.20', VENUE_PEM, false), 'accepted');

    // Staff are asked about another server; its certificate is trusted while the question reads its event.
    let token = await pins.candidate(other);
    assert.equal(tlsHandshake(state, '10.0.0.5', ATTACKER_PEM, false), 'accepted');
    assert.equal(tlsHandshake(state, '192.168.1.20', VENUE_PEM, false), 'accepted');
    // Cancelled: only the current pairing stays pinned.
    await pins.settle(token);
    assert.equal(tlsHandshake(state, '10.0.0.5', ATTACKER_PEM, false), 'refused');

    // Asked again and confirmed: the new pairing is the only pin.
    token = await pins.candidate(other);
    // A newer question supersedes; settling the older one leaves the newer's pins alone.
    const newer = await pins.candidate(other);
    await pins.settle(token);
    assert.equal(tlsHandshake(state, '10.0.0.5', ATTACKER_PEM, false), 'accepted');
    current = other;
    await pins.settle(newer);
    assert.equal(tlsHandshake(state, '10.0.0.5', ATTACKER_PEM, false), 'accepted');
    assert.equal(tlsHandshake(state, '192.168.1.20', VENUE_PEM, false), 'refused');
  });

  test('in a plain browser there is no shell and nothing to do', async () => {
    const pins = new ShellPins(null, () => venue);
    await pins.apply(venue);
    assert.equal(await pins.candidate(other), 1);
  });
});
