import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { createApp } from '@hearth/server'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { restNamesSource } from './src/rest-names-source.ts'

describe('client-sdk/src/rest-names.ts', () => {
  it("maps every REST path parameter the server's OpenAPI document names otherwise to its SDK argument", () => {
    const committed = readFileSync(
      join(import.meta.dirname, '..', 'client-sdk', 'src', 'rest-names.ts'),
      'utf8',
    )
    const app = createApp({ store: null as never, logger: pino({ level: 'silent' }) })
    const doc = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'Hearth API', version: '0' } })
    expect(committed, 'regenerate: npx tsx test/src/rest-names-source.ts').toBe(restNamesSource(doc as never))
    expect(committed).toContain("'budgets.get': { yearMonth: 'month' },")
    expect(committed).toContain("'rules.update': { ruleId: 'id' },")
  })
})
