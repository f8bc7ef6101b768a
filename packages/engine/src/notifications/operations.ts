import type { OperationTree } from '../mutator/registry.ts'
import { dismissFeedNotification, markFeedRead, readNotification } from './feed.ts'
import {
  dismissNotification,
  generateNotifications,
  markAllNotificationsRead,
  markNotificationRead,
} from './mutators.ts'
import { listNotificationPreferences, updateNotificationPreferences } from './preferences.ts'
import { createPushSubscription, deletePushSubscription } from './push-subscriptions.ts'
import { listHouseholdNotifications, listNotificationFeed } from './queries.ts'

/**
 * The notifications domain's operations (issue 27). `notifications.*` act in one household, as a
 * device does offline; `notificationFeed.*` are REST's, across the caller's households.
 */
export const notificationOperations = {
  notifications: {
    dismiss: dismissNotification,
    generate: generateNotifications,
    list: listHouseholdNotifications,
    markAllRead: markAllNotificationsRead,
    markRead: markNotificationRead,
  },
  notificationFeed: {
    dismiss: dismissFeedNotification,
    list: listNotificationFeed,
    markAllRead: markFeedRead,
    read: readNotification,
  },
  pushSubscriptions: {
    create: createPushSubscription,
    delete: deletePushSubscription,
  },
  notificationPreferences: {
    list: listNotificationPreferences,
    update: updateNotificationPreferences,
  },
} satisfies OperationTree
