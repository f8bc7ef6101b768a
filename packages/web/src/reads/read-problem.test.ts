import { describe, expect, it } from 'vitest'
import { readProblem } from './read-problem.ts'
import { scopeWords } from './scope-words.ts'

const synced = { version: 12, reachable: true, stopped: null }
const refused = Object.assign(new Error('This device’s key lacks the scope read:payees, so …'), {
  code: 'INSUFFICIENT_SCOPE',
  extra: { requiredScope: 'read:payees' },
})

describe('readProblem', () => {
  it('shows the data once every read answered on a synced replica', () => {
    expect(readProblem([{ data: { items: [] }, error: undefined }], synced)).toBeNull()
  })

  it('names the missing scope before anything else, even while other reads wait', () => {
    const reads = [
      { data: undefined, error: undefined },
      { data: undefined, error: refused },
    ]
    expect(readProblem(reads, synced)).toEqual({ kind: 'scope', scope: 'read:payees' })
  })

  it('says the replica is still fetching rather than show its empty answer as true', () => {
    const first = { version: null, reachable: true, stopped: null }
    expect(readProblem([{ data: { items: [] }, error: undefined }], first)).toEqual({
      kind: 'first-sync',
      loadedRows: null,
    })
    // With the rows counted as the snapshot loads.
    expect(readProblem([{ data: undefined, error: undefined }], { ...first, loadedRows: 6_000 })).toEqual({
      kind: 'first-sync',
      loadedRows: 6_000,
    })
  })

  it('says the device is offline with no copy yet when it cannot reach the server', () => {
    const offline = { version: null, reachable: false, stopped: null }
    expect(readProblem([{ data: { items: [] }, error: undefined }], offline)).toEqual({
      kind: 'offline-empty',
    })
  })

  it('gives the refusal that stopped sync before the replica had rows', () => {
    const stopped = {
      version: null,
      reachable: true,
      stopped: { code: 'UNAUTHENTICATED', message: 'Revoked.' },
    }
    expect(readProblem([], stopped)).toEqual({
      kind: 'stopped',
      code: 'UNAUTHENTICATED',
      message: 'Revoked.',
    })
  })

  it('gives any other refusal with its code and words', () => {
    const error = Object.assign(new Error('No account has this id.'), { code: 'NOT_FOUND' })
    expect(readProblem([{ data: undefined, error }], synced)).toEqual({
      kind: 'error',
      code: 'NOT_FOUND',
      message: 'No account has this id.',
    })
  })

  it('waits for a read not answered yet', () => {
    expect(readProblem([{ data: undefined, error: undefined }], synced)).toEqual({ kind: 'opening' })
  })

  it('shows what was kept from the last start while the replica opens (no replica state yet)', () => {
    expect(readProblem([{ data: { groups: [] }, error: undefined }], null)).toBeNull()
  })
})

describe('scopeWords', () => {
  it('says what a read scope shows in household words', () => {
    expect(scopeWords('read:transactions')).toBe('your transactions')
    expect(scopeWords('read:unknown')).toBe('what read:unknown covers')
  })
})
