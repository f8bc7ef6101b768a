import { describe, expect, it } from 'vitest'
import { choosesHost, isStoreUnavailable, parseClusterUrl, StoreUnavailableError } from './cluster-url.ts'
import { redact } from './postgres-store.ts'

describe('parseClusterUrl', () => {
  it('reads every host of a multi-host URL and gives pg a URL with the first', () => {
    const cluster = parseClusterUrl(
      'postgres://app:s3cret@127.0.0.1:56001,db2.example:56002/hearth?target_session_attrs=read-write&sslmode=disable',
    )
    expect(cluster.hosts).toEqual([
      { host: '127.0.0.1', port: 56001 },
      { host: 'db2.example', port: 56002 },
    ])
    expect(cluster.targetSessionAttrs).toBe('read-write')
    expect(cluster.singleHostUrl).toBe('postgres://app:s3cret@127.0.0.1:56001/hearth?sslmode=disable')
    expect(choosesHost(cluster)).toBe(true)
  })

  it('leaves a one-host URL as it was, and takes the default port', () => {
    const cluster = parseClusterUrl('postgresql://postgres@localhost/db')
    expect(cluster.hosts).toEqual([{ host: 'localhost', port: 5432 }])
    expect(cluster.targetSessionAttrs).toBe('any')
    expect(choosesHost(cluster)).toBe(false)
    expect(cluster.singleHostUrl).toBe('postgresql://postgres@localhost/db')
  })

  it('reads IPv6 hosts, takes any, and refuses what it does not support', () => {
    const cluster = parseClusterUrl('postgres://[::1]:5433,[::1]:5434/db?target_session_attrs=any')
    expect(cluster.hosts).toEqual([
      { host: '::1', port: 5433 },
      { host: '::1', port: 5434 },
    ])
    expect(cluster.targetSessionAttrs).toBe('any')
    expect(() => parseClusterUrl('postgres://a,b/db?target_session_attrs=standby')).toThrow(/not supported/)
  })

  it('redacts the password and keeps every host', () => {
    expect(redact('postgres://app:s3cret@h1:1,h2:2/db?target_session_attrs=read-write')).toBe(
      'postgres://app:***@h1:1,h2:2/db?target_session_attrs=read-write',
    )
    expect(redact('postgres://app@h1/db')).toBe('postgres://app@h1/db')
    expect(redact('postgres:///db?host=/run/postgresql')).toBe('postgres:///db?host=/run/postgresql')
    expect(redact('not a url')).toBe('postgres://(unparseable url)')
  })
})

describe('isStoreUnavailable', () => {
  it('tells a lost or read-only server from a failed statement', () => {
    const sqlstate = (code: string) => Object.assign(new Error('x'), { code })
    expect(isStoreUnavailable(sqlstate('57P01'))).toBe(true)
    expect(isStoreUnavailable(sqlstate('08006'))).toBe(true)
    expect(isStoreUnavailable(sqlstate('25006'))).toBe(true)
    expect(isStoreUnavailable(sqlstate('ECONNREFUSED'))).toBe(true)
    expect(isStoreUnavailable(new Error('Connection terminated unexpectedly'))).toBe(true)
    expect(isStoreUnavailable(new StoreUnavailableError('none'))).toBe(true)
    expect(isStoreUnavailable(new Error('outer', { cause: sqlstate('57P01') }))).toBe(true)
    expect(isStoreUnavailable(sqlstate('23505'))).toBe(false)
    expect(isStoreUnavailable(new Error('syntax error'))).toBe(false)
  })
})
