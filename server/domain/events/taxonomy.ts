/** The taxonomies of event terms as stored (TEC's names), by what the routes call them. */
export const TAXONOMY = { categories: 'tribe_events_cat', tags: 'post_tag' } as const;
