import { createCategory, deleteCategory, reorderCategories, updateCategory } from './mutators/categories.ts'
import { createCategoryGroup, deleteCategoryGroup, updateCategoryGroup } from './mutators/category-groups.ts'
import { createFlag, deleteFlag, updateFlag } from './mutators/flags.ts'
import { seedStarterPack } from './mutators/starter-pack.ts'
import { createTag, deleteTag, updateTag } from './mutators/tags.ts'
import {
  getCategory,
  getCategoryGroup,
  getFlag,
  getTag,
  listCategories,
  listCategoryGroups,
  listFlags,
  listTags,
} from './queries.ts'

/**
 * The catalog domain's operations by noun and verb; the registry names each after its path.
 * Payee operations are registered by the payees domain (`payees/operations.ts`), which owns the noun.
 */
export const catalogOperations = {
  catalog: {
    seedStarterPack: seedStarterPack,
  },
  categories: {
    create: createCategory,
    delete: deleteCategory,
    get: getCategory,
    list: listCategories,
    reorder: reorderCategories,
    update: updateCategory,
  },
  categoryGroups: {
    create: createCategoryGroup,
    delete: deleteCategoryGroup,
    get: getCategoryGroup,
    list: listCategoryGroups,
    update: updateCategoryGroup,
  },
  flags: {
    create: createFlag,
    delete: deleteFlag,
    get: getFlag,
    list: listFlags,
    update: updateFlag,
  },
  tags: {
    create: createTag,
    delete: deleteTag,
    get: getTag,
    list: listTags,
    update: updateTag,
  },
}
