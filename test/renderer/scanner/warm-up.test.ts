import { test } from 'vitest';
import assert from 'node:assert/strict';
import jsQR from 'jsqr';
import { denseWarmUpPlane, DENSE_WARM_UP_TEXT, warmUpImage, WARM_UP_TEXT } from '../../../renderer/scanner/warm-up.ts';
import { lumaToRgba } from '../../../renderer/scanner/luma.ts';

test('the decoder warm-up image is a real QR code jsQR reads', () => {
  const img = warmUpImage();
  assert.equal(jsQR(img.data, img.width, img.height)?.data, WARM_UP_TEXT);
});

test('the dense warm-up plane is a signed-ticket-sized code jsQR reads, as the camera picture would show it', () => {
  const width = 640;
  const height = 480;
  const plane = denseWarmUpPlane(width, height);
  const rgba = lumaToRgba({ data: plane, offset: 0, stride: width, width, height }, width, height);
  const found = jsQR(rgba, width, height, { inversionAttempts: 'dontInvert' });
  assert.equal(found?.data, DENSE_WARM_UP_TEXT);
  assert.equal(found?.version, 11);
});
