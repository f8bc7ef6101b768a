import type { LedgerHooks } from '../ledger/transactions/pipeline.ts'
import type { OperationTree } from '../mutator/registry.ts'
import { defineCommitImport } from './commit.ts'
import { getImport, getImportMapping, listImports, previewImport, saveImportMapping } from './queries.ts'
import { undoImport } from './undo.ts'

/**
 * The imports noun: bank files (OFX, QFX, CSV, camt.053) previewed, committed as one batch
 * through bulk create and the match engine, and undone as a whole; plus an account's saved CSV
 * mapping. Every one runs on a device too: the parsers are plain JavaScript.
 */
export function importOperations(hooks: LedgerHooks) {
  return {
    imports: {
      commit: defineCommitImport(hooks),
      get: getImport,
      getMapping: getImportMapping,
      list: listImports,
      preview: previewImport,
      saveMapping: saveImportMapping,
      undo: undoImport,
    },
  } satisfies OperationTree
}
