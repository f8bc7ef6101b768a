/** The part of `fs-native-extensions` (prebuilt, no types of its own) the data-folder lock uses. */
declare module 'fs-native-extensions' {
  /** Asks for an advisory lock on an open file; false when another open file holds it. */
  export function tryLock(fd: number, options?: { shared?: boolean }): boolean
  /** Releases a lock taken on `fd`; closing the file releases it too. */
  export function unlock(fd: number): void
}
