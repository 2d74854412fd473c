import { z } from 'zod';

/** Zero-padded date parts, all strings, as TEC emits them. */
export const DateDetails = z.object({
  year: z.string(),
  month: z.string(),
  day: z.string(),
  hour: z.string(),
  minutes: z.string(),
  seconds: z.string(),
});
export type DateDetails = z.infer<typeof DateDetails>;

export const ImageSize = z.object({
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  'mime-type': z.string().optional(),
  url: z.string(),
});

export const Image = z.object({
  url: z.string(),
  id: z.number().int(),
  extension: z.string(),
  width: z.number().int().optional(),
  height: z.number().int().optional(),
  filesize: z.number().int().optional(),
  sizes: z.record(z.string(), ImageSize),
});
export type Image = z.infer<typeof Image>;

export const CostDetails = z.object({
  currency_symbol: z.string(),
  currency_code: z.string(),
  currency_position: z.string(),
  values: z.array(z.string()),
});

/** Keys every post object of both namespaces carries (events, tickets, attendees), in their wire order. */
export const postMeta = {
  global_id: z.string(),
  global_id_lineage: z.array(z.string()),
  author: z.string(),
  status: z.string(),
  date: z.string(),
  date_utc: z.string(),
  modified: z.string(),
  modified_utc: z.string(),
};
