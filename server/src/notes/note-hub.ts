import { EngineError, type IdempotencyDecision, type Store } from '@hearth/engine'
import * as decoding from 'lib0/decoding'
import * as encoding from 'lib0/encoding'
import type { Logger } from 'pino'
import * as authProtocol from 'y-protocols/auth'
import * as syncProtocol from 'y-protocols/sync'
import * as Y from 'yjs'
import { type AwarenessPeer, NoteAwareness } from './note-awareness.ts'
import { MAX_NOTE_UPDATE_BYTES, NOTE_TEXT_NAME, noteProblem, textEdit } from './note-content.ts'
import { appendNoteUpdate, compactNote, type NoteIdempotency, readNote } from './note-store.ts'
import { type NoteKey, noteKeyText } from './targets.ts'

/** y-websocket's message types. */
export const MESSAGE_SYNC = 0
export const MESSAGE_AWARENESS = 1
export const MESSAGE_AUTH = 2

/** Updates a room writes before it merges them into one. */
export const COMPACT_AFTER_UPDATES = 100

/** One socket's side of a note: what the room needs of it. */
export interface NotePeer extends AwarenessPeer {
  /** May this peer change the note (its key holds the target's write scope)? */
  readonly canWrite: boolean
}

/** Why an update was not merged: told to the peer with the auth protocol's permission-denied. */
export class NoteRefusal extends Error {
  constructor(
    readonly code: string,
    detail: string,
  ) {
    super(detail)
  }
}

/**
 * One note's document as this instance holds it while anyone edits it: the state (store's
 * compacted state plus updates), the peers on it, and their awareness. Writes run one at a
 * time: each is checked on a copy, written to the store, and only then applied and sent on.
 */
export class NoteRoom {
  readonly doc = new Y.Doc({ gc: true })
  /** Who has the note open (note-awareness.ts). */
  readonly presence = new NoteAwareness(this.doc)
  readonly peers = new Set<NotePeer>()
  /** Update seqs this room holds, so an announcement of its own write is not read again. */
  private readonly seen = new Set<number>()
  private compactedSeq = 0
  /** The highest update seq this room holds (read or written), or the compaction it loaded. */
  private seenSeq = 0
  private uncompacted = 0
  private chain: Promise<unknown> = Promise.resolve()
  closed = false

  constructor(
    readonly key: NoteKey,
    private readonly store: Store,
    private readonly logger: Logger,
  ) {
    this.doc.on('update', (update: Uint8Array, origin: unknown) => {
      const message = encoding.createEncoder()
      encoding.writeVarUint(message, MESSAGE_SYNC)
      syncProtocol.writeUpdate(message, update)
      const bytes = encoding.toUint8Array(message)
      for (const peer of this.peers) if (peer !== origin) peer.send(bytes)
    })
  }

  /** Loads the stored document. */
  async load(): Promise<void> {
    const stored = await readNote(this.store.db, this.key)
    this.absorb(stored)
  }

  /** Reads what other instances wrote since and applies it (idempotent: Yjs ignores what it has). */
  async refresh(): Promise<void> {
    await this.serially(async () => this.absorb(await readNote(this.store.db, this.key)))
  }

  /** Another instance wrote update `seq`: read it unless this room wrote or read it already. */
  announced(seq: number): void {
    if (!this.seen.has(seq))
      void this.refresh().catch((err) => this.logger.warn({ err }, 'note refresh failed'))
  }

  private absorb(stored: Awaited<ReturnType<typeof readNote>>, whole = true): void {
    if (stored.state && (!whole || stored.compactedSeq > this.compactedSeq)) {
      Y.applyUpdate(this.doc, stored.state, 'store')
    }
    this.compactedSeq = Math.max(this.compactedSeq, stored.compactedSeq)
    this.seenSeq = Math.max(this.seenSeq, stored.compactedSeq)
    for (const u of stored.updates) {
      this.seenSeq = Math.max(this.seenSeq, u.seq)
      if (this.seen.has(u.seq)) continue
      this.seen.add(u.seq)
      Y.applyUpdate(this.doc, u.data, 'store')
    }
    if (whole) this.uncompacted = stored.updates.length
    else this.uncompacted += stored.updates.length
  }

  /** A peer joins: it gets the room's state vector (sync step 1) and everyone's awareness. */
  join(peer: NotePeer): void {
    this.peers.add(peer)
    const step1 = encoding.createEncoder()
    encoding.writeVarUint(step1, MESSAGE_SYNC)
    syncProtocol.writeSyncStep1(step1, this.doc)
    peer.send(encoding.toUint8Array(step1))
    this.presence.join(peer)
  }

  /** A peer left: its awareness state goes. Answers whether the room is now empty. */
  leave(peer: NotePeer): boolean {
    this.peers.delete(peer)
    this.presence.leave(peer)
    return this.peers.size === 0
  }

  /** A binary frame from `peer`, handled in arrival order with every other write to the room. */
  receive(peer: NotePeer, data: Uint8Array): Promise<void> {
    return this.serially(() => this.handle(peer, data))
  }

  private async handle(peer: NotePeer, data: Uint8Array): Promise<void> {
    const decoder = decoding.createDecoder(data)
    const type = decoding.readVarUint(decoder)
    if (type === MESSAGE_SYNC) {
      const step = decoding.readVarUint(decoder)
      if (step === syncProtocol.messageYjsSyncStep1) {
        const reply = encoding.createEncoder()
        encoding.writeVarUint(reply, MESSAGE_SYNC)
        syncProtocol.writeSyncStep2(reply, this.doc, decoding.readVarUint8Array(decoder))
        peer.send(encoding.toUint8Array(reply))
      } else if (step === syncProtocol.messageYjsSyncStep2 || step === syncProtocol.messageYjsUpdate) {
        const update = decoding.readVarUint8Array(decoder)
        try {
          await this.write(update, peer)
        } catch (error) {
          if (!(error instanceof NoteRefusal)) throw error
          const denied = encoding.createEncoder()
          encoding.writeVarUint(denied, MESSAGE_AUTH)
          authProtocol.writePermissionDenied(denied, `${error.code}: ${error.message}`)
          peer.send(encoding.toUint8Array(denied))
        }
      }
    } else if (type === MESSAGE_AWARENESS && this.peers.has(peer)) {
      this.presence.receive(peer, decoding.readVarUint8Array(decoder))
    }
  }

  /**
   * Checks `update` on a copy of the document, then writes it to the store and applies it.
   * Nothing new (an echo, a step 2 of what the room has) is not written. An update whose
   * dependencies the room lacks yet (a client's live edit on top of offline ones it has not sent)
   * is dropped: the room's state vector does not cover it, so the client's sync step 2 brings it.
   */
  async write(
    update: Uint8Array,
    origin: NotePeer | 'rest',
    idempotency?: NoteIdempotency,
  ): Promise<Exclude<IdempotencyDecision, { kind: 'proceed' }> | null> {
    if (update.byteLength > MAX_NOTE_UPDATE_BYTES) {
      throw new NoteRefusal('NOTE_TOO_LARGE', `An update holds at most ${MAX_NOTE_UPDATE_BYTES} bytes.`)
    }
    const probe = new Y.Doc()
    Y.applyUpdate(probe, Y.encodeStateAsUpdate(this.doc))
    const before = Y.snapshot(probe)
    try {
      Y.applyUpdate(probe, update)
    } catch {
      throw new NoteRefusal('NOTE_UPDATE_MALFORMED', 'The update is not a Yjs update.')
    }
    if (probe.store.pendingStructs || probe.store.pendingDs) return null
    if (Y.equalSnapshots(before, Y.snapshot(probe))) return null
    if (origin !== 'rest' && !origin.canWrite) {
      throw new NoteRefusal(
        'READ_ONLY',
        'Your key may read this note but not change it; the edit was not merged.',
      )
    }
    const problem = noteProblem(probe)
    if (problem) throw new NoteRefusal(problem.code, problem.detail)
    const written = await appendNoteUpdate(
      this.store.db,
      this.key,
      update,
      this.seenSeq,
      (missed) => {
        // Other instances' writes this room has not heard of yet: the stored text includes them.
        if (missed.state) Y.applyUpdate(probe, missed.state)
        for (const u of missed.updates) if (!this.seen.has(u.seq)) Y.applyUpdate(probe, u.data)
        return probe.getText(NOTE_TEXT_NAME).toString()
      },
      idempotency,
    )
    if ('decision' in written) return written.decision
    this.absorb(
      {
        state: written.missed.state,
        compactedSeq: 0,
        updates: written.missed.updates,
        text: '',
        updatedAt: null,
      },
      false,
    )
    this.seen.add(written.seq)
    this.seenSeq = Math.max(this.seenSeq, written.seq)
    Y.applyUpdate(this.doc, update, origin)
    this.uncompacted++
    if (this.uncompacted >= COMPACT_AFTER_UPDATES) await this.compact()
    return null
  }

  /** Replaces the note's text through a Yjs edit of the smallest changed span, so live editors keep theirs. */
  async replaceText(
    next: string,
    append = false,
    idempotency?: NoteIdempotency,
  ): Promise<Exclude<IdempotencyDecision, { kind: 'proceed' }> | null> {
    return this.serially(async () => {
      const copy = new Y.Doc()
      Y.applyUpdate(copy, Y.encodeStateAsUpdate(this.doc))
      const text = copy.getText(NOTE_TEXT_NAME)
      const before = Y.encodeStateVector(copy)
      if (append) text.insert(text.length, next)
      else {
        const edit = textEdit(text.toString(), next)
        copy.transact(() => {
          if (edit.remove > 0) text.delete(edit.index, edit.remove)
          if (edit.insert) text.insert(edit.index, edit.insert)
        })
      }
      const update = Y.encodeStateAsUpdate(copy, before)
      try {
        return await this.write(update, 'rest', idempotency)
      } catch (error) {
        if (error instanceof NoteRefusal) throw new EngineError(422, error.code, error.message)
        throw error
      }
    })
  }

  /** Merges the stored updates into one (after many writes, and when the last peer leaves). */
  async compact(): Promise<void> {
    try {
      await compactNote(this.store.db, this.key)
      this.uncompacted = 0
    } catch (err) {
      this.logger.warn({ err, note: noteKeyText(this.key) }, 'note compaction failed')
    }
  }

  serially<T>(work: () => Promise<T>): Promise<T> {
    const run = this.chain.then(work, work)
    this.chain = run.catch(() => {})
    return run
  }

  close(): void {
    this.closed = true
    this.presence.close()
    this.doc.destroy()
  }
}
