/**
 * A change a device made, in a household's words, as the undo toast and the refused list say it:
 * "Saved: new account.", "Not saved: budget assignment.". Operations whose verb is not a plain
 * create, update or delete have words of their own; any other reads from its name.
 */
const WORDS: Record<string, string> = {
  'accounts.close': 'closing of an account',
  'accounts.reopen': 'reopening of an account',
  'accounts.convert': 'change of an account’s type',
  'activity.undo': 'undo',
  'activity.undoMutation': 'undo',
  'budgets.assign': 'budget assignment',
  'budgets.move': 'move between categories',
  'budgets.autoAssignFromGoals': 'assignment from goals',
  'budgets.deleteCategory': 'deletion of a category',
  'catalog.seedStarterPack': 'starter categories',
  'categories.reorder': 'new order of categories',
  'households.update': 'change to the household',
  'imports.undo': 'undo of an import',
  'loans.setTerms': 'new loan terms',
  'notifications.dismiss': 'dismissed notification',
  'notifications.markRead': 'notification marked read',
  'notifications.markAllRead': 'notifications marked read',
  'payees.merge': 'merge of payees',
  'recurrences.acceptSuggestion': 'accepted bill',
  'recurrences.dismissSuggestion': 'dismissed suggestion',
  'recurrences.materializeNow': 'bill booked now',
  'recurrences.pause': 'paused bill',
  'recurrences.resume': 'resumed bill',
  'rules.apply': 'run of a rule',
  'transactions.acceptSuggestion': 'accepted category',
}

/** `transactions.update` → "change to a transaction"; `accounts.close` → "closing of an account". */
export function changeWords(name: string): string {
  const known = WORDS[name]
  if (known) return known
  if (!name.includes('.')) return 'a change'
  const [noun = '', verb = ''] = name.split('.')
  const thing = words(noun.replace(/ies$/, 'y').replace(/s$/, ''))
  switch (verb) {
    case 'create':
      return `new ${thing}`
    case 'update':
      return `change to ${article(thing)} ${thing}`
    case 'delete':
      return `deletion of ${article(thing)} ${thing}`
    default:
      return `${thing} ${words(verb)}`
  }
}

/** `categoryGroup` → "category group". */
function words(camel: string): string {
  return camel.replace(/([A-Z])/g, ' $1').toLowerCase()
}

function article(thing: string): string {
  return /^[aeiou]/.test(thing) ? 'an' : 'a'
}
