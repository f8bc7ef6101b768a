/**
 * Whether this browser has been through (or skipped) setting up a household, so the budget of a
 * new, empty household leads there once and never again after.
 */
const KEY = 'hearth.set-up:'

export function isSetUp(householdId: string): boolean {
  try {
    return localStorage.getItem(KEY + householdId) !== null
  } catch {
    return false
  }
}

export function markSetUp(householdId: string): void {
  try {
    localStorage.setItem(KEY + householdId, new Date().toISOString())
  } catch {
    // A full or blocked localStorage: the budget offers the setup again, which is harmless.
  }
}
