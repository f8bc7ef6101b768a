/** Categories, category groups, payees, tags and flags: the vocabulary rows refer to. */
// biome-ignore lint/complexity/noBannedTypes: filled in by the catalog migration
export type CatalogTables = {}
