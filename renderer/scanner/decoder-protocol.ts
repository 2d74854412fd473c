/** Messages between the camera pump and the QR decoding worker. */
export interface DecodeRequest {
  id: number;
  frame: ImageBitmap;
  /** `performance.now()` when the page received the frame (start of scan-to-verdict). */
  frameAt: number;
}

export interface DecodeReply {
  id: number;
  text: string | null;
  frameAt: number;
}
