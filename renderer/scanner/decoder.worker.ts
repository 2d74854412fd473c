/// <reference lib="webworker" />
import jsQR from 'jsqr';
import type { DecodeReply, DecodeRequest } from './decoder-protocol.ts';
import { warmUpImage } from './warm-up.ts';

/**
 * Decodes QR codes off the main thread: the page hands over each frame as an ImageBitmap (a transfer, no
 * copy) and gets the text back, so the UI never waits on jsQR.
 */
const scope = self as unknown as DedicatedWorkerGlobalScope;
let canvas: OffscreenCanvas | null = null;
let ctx: OffscreenCanvasRenderingContext2D | null = null;

{
  const warm = warmUpImage();
  jsQR(warm.data, warm.width, warm.height, { inversionAttempts: 'dontInvert' });
}

scope.onmessage = (event: MessageEvent<DecodeRequest>) => {
  const { id, frame, frameAt } = event.data;
  let text: string | null = null;
  try {
    const { width, height } = frame;
    if (!canvas || canvas.width !== width || canvas.height !== height) {
      canvas = new OffscreenCanvas(width, height);
      ctx = canvas.getContext('2d', { willReadFrequently: true });
    }
    if (ctx) {
      ctx.drawImage(frame, 0, 0);
      const image = ctx.getImageData(0, 0, width, height);
      // Printed and on-screen tickets are dark on light; skipping the inverted pass halves the work.
      text = jsQR(image.data, width, height, { inversionAttempts: 'dontInvert' })?.data ?? null;
    }
  } finally {
    frame.close();
  }
  const reply: DecodeReply = { id, text, frameAt };
  scope.postMessage(reply);
};
