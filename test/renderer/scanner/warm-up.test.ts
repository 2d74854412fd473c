import { test } from 'vitest';
import assert from 'node:assert/strict';
import jsQR from 'jsqr';
import { warmUpImage, WARM_UP_TEXT } from '../../../renderer/scanner/warm-up.ts';

test('the decoder warm-up image is a real QR code jsQR reads', () => {
  const img = warmUpImage();
  assert.equal(jsQR(img.data, img.width, img.height)?.data, WARM_UP_TEXT);
});
