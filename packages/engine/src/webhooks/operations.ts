import type { OperationTree } from '../mutator/registry.ts'
import {
  createWebhook,
  deleteWebhook,
  disableWebhook,
  retryWebhookDelivery,
  rotateWebhookSecret,
  sendWebhookTest,
  updateWebhook,
} from './mutators.ts'
import { listWebhookDeliveries, listWebhooks } from './queries.ts'

/** The webhooks domain's operations (issue 27); only the server runs them: devices hold no secret. */
export const webhookOperations = {
  webhooks: {
    create: createWebhook,
    delete: deleteWebhook,
    deliveries: listWebhookDeliveries,
    disable: disableWebhook,
    list: listWebhooks,
    retryDelivery: retryWebhookDelivery,
    rotateSecret: rotateWebhookSecret,
    test: sendWebhookTest,
    update: updateWebhook,
  },
} satisfies OperationTree
