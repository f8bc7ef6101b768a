/** A group of categories as the household edits it before creating it. */
export interface DraftGroup {
  name: string
  isIncome: boolean
  /** Ticked off, the group is not created (its categories neither). */
  included: boolean
  categories: { name: string; included: boolean }[]
}

/** A group as `catalog.seedStarterPack` takes it in `groups`. */
export interface PackGroup {
  name: string
  isIncome: boolean
  categories: string[]
}

/**
 * The edited pack as the engine seeds it: groups and categories ticked, names trimmed, blank
 * names and groups left with no category dropped. The engine matches names with what the
 * household has, so sending it again creates nothing twice.
 */
export function packOf(draft: readonly DraftGroup[]): PackGroup[] {
  return draft.flatMap((group) => {
    const name = group.name.trim()
    const categories = group.categories.filter((c) => c.included && c.name.trim()).map((c) => c.name.trim())
    return group.included && name && categories.length > 0
      ? [{ name, isIncome: group.isIncome, categories }]
      : []
  })
}

/** The starter pack in a language, as a draft to edit: everything ticked. */
export function draftOf(
  pack: readonly {
    isIncome: boolean
    names: Record<string, string>
    categories: readonly { names: Record<string, string> }[]
  }[],
  language: string,
): DraftGroup[] {
  return pack.map((g) => ({
    name: g.names[language] ?? g.names.en ?? '',
    isIncome: g.isIncome,
    included: true,
    categories: g.categories.map((c) => ({ name: c.names[language] ?? c.names.en ?? '', included: true })),
  }))
}
