import { rmSync } from 'node:fs'
import type { Hearth, HearthNote } from '@hearth/client'
import { sql } from 'kysely'
import { ulid } from 'ulidx'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { WebSocket } from 'ws'
import { TEST_DATABASE_URL, type TestMember, useTestServer } from '../src/index.ts'
import { closeDevice, closeDevices, eventually, newDevice, newDeviceFolder } from '../sync/devices.ts'

// On PostgreSQL the server LISTENs as a deployed one does (HEARTH_DATABASE_URL set).
const server = useTestServer({ databaseUrl: TEST_DATABASE_URL })
const notes: HearthNote[] = []
// The first device of a run migrates the device template (seconds, longer under load): not the notes' time.
beforeAll(async () => rmSync(await newDeviceFolder(), { recursive: true, force: true }), 180_000)
afterEach(async () => {
  await Promise.all(notes.splice(0).map((n) => n.close()))
  await closeDevices()
})

async function open(device: Hearth, target: Parameters<Hearth['notes']['open']>[0]): Promise<HearthNote> {
  const note = await device.notes.open(target)
  notes.push(note)
  return note
}

async function newAccount(member: TestMember): Promise<string> {
  const id = ulid()
  const res = await member.api.post(`/households/${member.householdId}/accounts`, {
    id,
    name: `Checking ${id.slice(-4)}`,
    type: 'cash',
  })
  expect(res.status).toBe(201)
  return id
}

const noteText = async (member: TestMember, path: string) => {
  const res = await member.api.get(`/households/${member.householdId}/${path}/note`)
  expect(res.status).toBe(200)
  return res.body.text as string
}

describe('shared notes over Yjs', { timeout: 90_000 }, () => {
  it('two devices edit the same note live and converge; REST reads the merged text', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    const [a, b] = await Promise.all([newDevice(server, owner), newDevice(server, owner)])
    const na = await open(a, { kind: 'account', id: accountId })
    const nb = await open(b, { kind: 'account', id: accountId })
    await Promise.all([na.whenSynced(), nb.whenSynced()])
    na.text.insert(0, 'Joint account. ')
    await eventually(() => expect(nb.text.toString()).toBe('Joint account. '))
    // Concurrent edits at both ends merge without losing either.
    na.text.insert(0, 'Note: ')
    nb.text.insert(nb.text.length, 'Close in May.')
    await eventually(() => {
      expect(na.text.toString()).toBe('Note: Joint account. Close in May.')
      expect(nb.text.toString()).toBe(na.text.toString())
    })
    await eventually(async () =>
      expect(await noteText(owner, `accounts/${accountId}`)).toBe('Note: Joint account. Close in May.'),
    )
    const res = await owner.api.get(`/households/${owner.householdId}/accounts/${accountId}/note`)
    expect(res.body).toMatchObject({ target: { kind: 'account', id: accountId } })
    expect(Date.parse(res.body.updatedAt)).toBeGreaterThan(Date.now() - 60_000)
    // Who else is editing: each sees the other's awareness state, stamped with the member's id.
    await eventually(() => {
      const others = [...na.awareness.getStates()].filter(([id]) => id !== na.doc.clientID)
      expect(others.map(([, s]) => s.user?.id)).toEqual([owner.userId])
    })
  })

  it('replaces and appends over REST, merged with a live editor', async () => {
    const owner = await server.newOwner()
    const month = '2026-11'
    const a = await newDevice(server, owner)
    const note = await open(a, { kind: 'month', id: month })
    await note.whenSynced()
    const H = `/households/${owner.householdId}`
    expect((await owner.api.get(`${H}/budgets/${month}/note`)).body).toEqual({
      target: { kind: 'month', id: month },
      text: '',
      updatedAt: null,
    })
    expect((await owner.api.put(`${H}/budgets/${month}/note`, { text: 'Groceries ran over.' })).status).toBe(
      200,
    )
    await eventually(() => expect(note.text.toString()).toBe('Groceries ran over.'))
    note.text.insert(0, 'November: ')
    await eventually(async () =>
      expect(await noteText(owner, `budgets/${month}`)).toBe('November: Groceries ran over.'),
    )
    // A replace edits only the span that differs: the live editor's prefix stays where it is.
    const put = await owner.api.put(`${H}/budgets/${month}/note`, {
      text: 'November: Groceries ran over by $40.',
    })
    expect(put.body.text).toBe('November: Groceries ran over by $40.')
    const appended = await owner.api.post(`${H}/budgets/${month}/note/append`, { text: '\nMove from Fun.' })
    expect(appended.body.text).toBe('November: Groceries ran over by $40.\nMove from Fun.')
    await eventually(() =>
      expect(note.text.toString()).toBe('November: Groceries ran over by $40.\nMove from Fun.'),
    )
    // A retried append with its Idempotency-Key is answered again, not appended twice.
    const retry = { 'idempotency-key': ulid() }
    const once = await owner.api.post(`${H}/budgets/${month}/note/append`, { text: ' Twice?' }, retry)
    const again = await owner.api.post(`${H}/budgets/${month}/note/append`, { text: ' Twice?' }, retry)
    expect(again.headers.get('idempotent-replayed')).toBe('true')
    expect(again.body).toEqual(once.body)
    expect(once.body.text).toBe('November: Groceries ran over by $40.\nMove from Fun. Twice?')
    const reused = await owner.api.post(`${H}/budgets/${month}/note/append`, { text: ' Other' }, retry)
    expect(reused.status).toBe(422)
    expect(reused.body.code).toBe('IDEMPOTENCY_KEY_REUSED')
    expect(await noteText(owner, `budgets/${month}`)).toBe(
      'November: Groceries ran over by $40.\nMove from Fun. Twice?',
    )
    // Bad input and bad targets.
    expect((await owner.api.put(`${H}/budgets/2026-13/note`, { text: 'x' })).status).toBe(404)
    expect((await owner.api.put(`${H}/budgets/${month}/note`, { text: 7 })).status).toBe(400)
    expect((await owner.api.put(`${H}/budgets/${month}/note`, { text: 'x'.repeat(20_001) })).status).toBe(400)
    const long = await owner.api.post(`${H}/budgets/${month}/note/append`, { text: 'y'.repeat(20_000) })
    expect(long.status).toBe(422)
    expect(long.body.code).toBe('NOTE_TOO_LONG')
    expect((await owner.api.get(`${H}/accounts/${ulid()}/note`)).status).toBe(404)
  })

  it('keeps offline edits in the device folder and merges them on reconnect', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    const folder = await newDeviceFolder()
    const target = { kind: 'account', id: accountId } as const
    let a = await newDevice(server, owner, { store: folder })
    let na = await a.notes.open(target)
    await na.whenSynced()
    na.text.insert(0, 'Shared.')
    await eventually(async () => expect(await noteText(owner, `accounts/${accountId}`)).toBe('Shared.'))
    await na.close()
    await closeDevice(a)

    // Offline: no server to reach; the cached note opens and takes edits.
    a = await newDevice(server, owner, { store: folder, serverUrl: 'http://127.0.0.1:9' })
    na = await a.notes.open(target)
    expect(na.text.toString()).toBe('Shared.')
    na.text.insert(0, 'Offline first. ')
    await na.close()
    await closeDevice(a)

    // Meanwhile another member's device edits the same note online.
    const b = await newDevice(server, owner)
    const nb = await open(b, target)
    await nb.whenSynced()
    nb.text.insert(nb.text.length, ' Online later.')
    await eventually(async () =>
      expect(await noteText(owner, `accounts/${accountId}`)).toBe('Shared. Online later.'),
    )

    // A restarted device reconnects: both edits merge everywhere.
    a = await newDevice(server, owner, { store: folder })
    na = await open(a, target)
    await na.whenSynced()
    const merged = 'Offline first. Shared. Online later.'
    await eventually(() => {
      expect(na.text.toString()).toBe(merged)
      expect(nb.text.toString()).toBe(merged)
    })
    await eventually(async () => expect(await noteText(owner, `accounts/${accountId}`)).toBe(merged))
    rmSync(folder, { recursive: true, force: true })
  })

  it('refuses keys outside the household or without the read scope, and read-only edits', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    const target = { kind: 'account', id: accountId } as const
    const H = `/households/${owner.householdId}`
    await owner.api.put(`${H}/accounts/${accountId}/note`, { text: 'Owner only.' })

    const noScope = await server.newMember(owner, 'member', ['read:households', 'read:transactions'])
    const blind = await open(await newDevice(server, noScope), target)
    await expect(blind.whenSynced()).rejects.toMatchObject({ code: 'INSUFFICIENT_SCOPE' })
    expect(blind.status.error?.code).toBe(4403)
    expect(blind.text.toString()).toBe('')
    expect((await noScope.api.get(`${H}/accounts/${accountId}/note`)).status).toBe(403)

    const stranger = await server.newOwner()
    const outside = await open(await newDevice(server, stranger), target)
    // The stranger's device joins its own household; the note names the owner's.
    const raw = await rawNote(`${H.slice('/households/'.length)}/account/${accountId}`, stranger.api.token)
    expect(raw.code).toBe(4404)
    expect(raw.reason).toBe('NOT_FOUND')
    await outside.close()
    expect((await stranger.api.get(`${H}/accounts/${accountId}/note`)).status).toBe(404)

    const reader = await server.newMember(owner, 'member', ['read:households', 'read:accounts'])
    const readOnly = await open(await newDevice(server, reader), target)
    await readOnly.whenSynced()
    await eventually(() => expect(readOnly.text.toString()).toBe('Owner only.'))
    const refused = new Promise<string>((resolve) => readOnly.on('refused', resolve))
    readOnly.text.insert(0, 'Sneaky. ')
    expect(await refused).toMatch(/^READ_ONLY/)
    expect((await reader.api.put(`${H}/accounts/${accountId}/note`, { text: 'x' })).status).toBe(403)
    // The refused edit was not merged; the reader still receives the others' edits.
    await owner.api.post(`${H}/accounts/${accountId}/note/append`, { text: ' Still.' })
    await eventually(() => expect(readOnly.text.toString()).toBe('Sneaky. Owner only. Still.'))
    expect(await noteText(owner, `accounts/${accountId}`)).toBe('Owner only. Still.')
  })

  it('refuses anything but plain text in a note', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    const device = await newDevice(server, owner)
    const note = await open(device, { kind: 'account', id: accountId })
    await note.whenSynced()
    const refusals: string[] = []
    note.on('refused', (r) => refusals.push(r))
    note.doc.getMap('ledger').set('amountCents', 5000)
    await eventually(() => expect(refusals[0]).toMatch(/^NOTE_NOT_TEXT/))
    // The refused copy is forgotten on close: the note reopens as the server has it, and takes edits.
    await note.close()
    const again = await open(device, { kind: 'account', id: accountId })
    await again.whenSynced()
    expect(again.doc.share.has('ledger')).toBe(false)
    again.text.insert(0, 'Plain.')
    await eventually(async () => expect(await noteText(owner, `accounts/${accountId}`)).toBe('Plain.'))
    // The last update stored, whether still a row or already merged into the note's state: the
    // first copy's room compacts as it is dropped, which may come after 'Plain.' was written.
    const lastStored = async () => {
      const { rows } = await sql<{ seq: string | null }>`
        select greatest(
          (select max(seq) from note_updates where target_id = ${accountId}),
          (select compacted_seq from notes where target_id = ${accountId}))::text as seq`.execute(
        server.store.db,
      )
      return rows[0]!.seq
    }
    // 'Plain.' is stored (the refused first copy stored nothing, so it is the only update).
    const stored = await lastStored()
    expect(Number(stored)).toBeGreaterThan(0)
    again.on('refused', (r) => refusals.push(r))
    again.text.insert(0, 'bold', { bold: true })
    await eventually(() => expect(refusals[1]).toMatch(/^NOTE_NOT_TEXT/))
    expect(await noteText(owner, `accounts/${accountId}`)).toBe('Plain.')
    expect(await lastStored()).toBe(stored)
    // Text PostgreSQL cannot store (the NUL character) is refused on the socket and over REST.
    await again.close()
    const third = await open(device, { kind: 'account', id: accountId })
    await third.whenSynced()
    third.on('refused', (r) => refusals.push(r))
    third.text.insert(0, 'nul \u0000 ')
    await eventually(() => expect(refusals[2]).toMatch(/^NOTE_NOT_TEXT/))
    const put = await owner.api.put(`/households/${owner.householdId}/accounts/${accountId}/note`, {
      text: 'nul \u0000',
    })
    expect(put.status).toBe(400)
    expect(await noteText(owner, `accounts/${accountId}`)).toBe('Plain.')
  })

  it('closes a note socket when its key is revoked or its target deleted, and deletes the note', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    const H = `/households/${owner.householdId}`
    const member = await server.newMember(owner, 'member')
    const device = await newDevice(server, member)
    const note = await open(device, { kind: 'account', id: accountId })
    await note.whenSynced()
    await sql`update api_keys set revoked_at = now() where user_id = ${member.userId}`.execute(
      server.store.db,
    )
    await eventually(() => expect(note.status.error).toEqual({ code: 4401, reason: 'KEY_REVOKED' }))

    const a = await newDevice(server, owner)
    const ownerNote = await open(a, { kind: 'account', id: accountId })
    await ownerNote.whenSynced()
    ownerNote.text.insert(0, 'Going away.')
    await eventually(async () => expect(await noteText(owner, `accounts/${accountId}`)).toBe('Going away.'))
    expect((await owner.api.delete(`${H}/accounts/${accountId}`)).status).toBe(204)
    await eventually(() => expect(ownerNote.status.error).toEqual({ code: 4410, reason: 'NOTE_DELETED' }))
    expect((await owner.api.get(`${H}/accounts/${accountId}/note`)).status).toBe(404)
    const left = await sql<{ n: number }>`
      select (select count(*) from notes where target_id = ${accountId})::int
           + (select count(*) from note_updates where target_id = ${accountId})::int as n`.execute(
      server.store.db,
    )
    expect(left.rows[0]!.n).toBe(0)

    // A transaction's note goes with the transaction.
    const other = await newAccount(owner)
    const tx = await owner.api.post(`${H}/transactions`, {
      accountId: other,
      date: '2026-11-02',
      amountCents: -1200,
    })
    await owner.api.put(`${H}/transactions/${tx.body.id}/note`, { text: 'Receipt in the drawer.' })
    expect(await noteText(owner, `transactions/${tx.body.id}`)).toBe('Receipt in the drawer.')
    expect((await owner.api.delete(`${H}/transactions/${tx.body.id}`)).status).toBe(204)
    const gone = await sql<{ n: number }>`
      select count(*)::int as n from notes where target_id = ${tx.body.id}`.execute(server.store.db)
    expect(gone.rows[0]!.n).toBe(0)
  })

  it('compacts a note’s updates and keeps the note across a server restart', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    const device = await newDevice(server, owner)
    const note = await open(device, { kind: 'account', id: accountId })
    await note.whenSynced()
    for (let i = 0; i < 150; i++) {
      note.text.insert(note.text.length, `${i % 10}`)
      if (i % 10 === 9) await new Promise((r) => setTimeout(r, 10))
    }
    const expected = '0123456789'.repeat(15)
    await eventually(async () => expect(await noteText(owner, `accounts/${accountId}`)).toBe(expected))
    const counts = async () =>
      (
        await sql<{ updates: number; compacted: boolean }>`
          select (select count(*) from note_updates where target_id = ${accountId})::int as updates,
                 (select state is not null from notes where target_id = ${accountId}) as compacted`.execute(
          server.store.db,
        )
      ).rows[0]!
    const during = await counts()
    expect(during.compacted).toBe(true)
    expect(during.updates).toBeLessThan(100)
    await note.close()
    notes.splice(notes.indexOf(note), 1)
    // The room is idle now: its updates merge into one.
    await eventually(async () => expect((await counts()).updates).toBe(0))

    await server.restart()
    // (eventually: the HTTP client's pooled connection to the stopped server fails once)
    await eventually(async () => expect(await noteText(owner, `accounts/${accountId}`)).toBe(expected))
    const fresh = await open(await newDevice(server, owner), { kind: 'account', id: accountId })
    await fresh.whenSynced()
    await eventually(() => expect(fresh.text.toString()).toBe(expected))
  })

  // Last in the file: after this failed authentication the next REST request of the file's HTTP
  // client met ECONNRESET on PGlite (see the s25-30c report); not yet explained.
  it('refuses an unknown key on a note socket with 4401', async () => {
    const owner = await server.newOwner()
    const accountId = await newAccount(owner)
    expect(await rawNote(`${owner.householdId}/account/${accountId}`, 'hk_nonsense')).toEqual({
      code: 4401,
      reason: 'UNAUTHENTICATED',
    })
  })
})

/** Opens a note socket by hand, as a browser would (the key as a subprotocol), and answers how it closed. */
function rawNote(path: string, token: string): Promise<{ code: number; reason: string }> {
  const url = `${server.url.replace(/^http/, 'ws')}/notes/ws/${path}`
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url, ['hearth-notes', `hearth-key.${token}`])
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() }))
    ws.on('error', reject)
  })
}
