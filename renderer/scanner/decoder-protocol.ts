/** Messages between the camera pump and the QR decoding worker. */
export interface DecodeRequest {
  id: number;
  /**
   * The picture: a VideoFrame where the browser has them (a handle on the camera's frame, no copy on the page's
   * thread), else an ImageBitmap. Either is transferred, and the worker closes it.
   */
  frame: VideoFrame | ImageBitmap;
  /** `performance.now()` when the page received the frame (start of scan-to-verdict). */
  frameAt: number;
}

export interface DecodeReply {
  id: number;
  text: string | null;
  frameAt: number;
  /** The scene had not changed since the last frame read, so jsQR did not run (see scene.ts). */
  skipped: boolean;
}
