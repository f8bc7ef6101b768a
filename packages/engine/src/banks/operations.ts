import type { LedgerHooks } from '../ledger/transactions/pipeline.ts'
import type { OperationTree } from '../mutator/registry.ts'
import {
  createBankConnection,
  defineSyncBankConnection,
  deleteBankConnection,
  linkBankAccount,
} from './mutators.ts'
import { getBankConnection, listBankConnections } from './queries.ts'

/**
 * Bank connections: a provider (SimpleFIN first) reached by the server, never a device, since
 * the access credential is the server's to hold. The server fetches; these record and apply.
 */
export function bankOperations(hooks: LedgerHooks) {
  return {
    bankConnections: {
      create: createBankConnection,
      delete: deleteBankConnection,
      get: getBankConnection,
      link: linkBankAccount,
      list: listBankConnections,
      sync: defineSyncBankConnection(hooks),
    },
  } satisfies OperationTree
}
