import { z } from 'zod';

/** The WordPress REST error body: every failure the server sends has this shape. */
export const ErrorEnvelope = z.object({
  code: z.string(),
  message: z.string(),
  data: z.looseObject({ status: z.number().int() }).nullable(),
});
export type ErrorEnvelope = z.infer<typeof ErrorEnvelope>;
