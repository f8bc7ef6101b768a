import { SYNC_PROTOCOL_VERSION } from '@hearth/contracts'
import { ulid } from 'ulidx'
import WebSocket from 'ws'

/** A raw protocol client for tests: send messages, await the next one of a type. */
export interface RawSocket {
  send(message: Record<string, unknown>): void
  next(type?: string, timeoutMs?: number): Promise<any>
  closed: Promise<{ code: number; reason: string }>
  close(): void
  /** The server's WebSocket pings received so far. */
  pings(): number
}

/**
 * Opens `/sync` on a server, optionally with a bearer header; `autoPong: false` leaves the
 * server's pings unanswered, as a device that vanished would.
 */
export async function rawSocket(
  serverUrl: string,
  headers: Record<string, string> = {},
  options: { autoPong?: boolean } = {},
): Promise<RawSocket> {
  const ws = new WebSocket(`${serverUrl.replace(/^http/, 'ws')}/sync`, {
    headers,
    autoPong: options.autoPong ?? true,
  })
  let pings = 0
  ws.on('ping', () => pings++)
  const inbox: any[] = []
  const waiters: (() => void)[] = []
  ws.on('message', (data) => {
    inbox.push(JSON.parse(data.toString()))
    for (const w of waiters.splice(0)) w()
  })
  const closed = new Promise<{ code: number; reason: string }>((resolve) =>
    ws.on('close', (code, reason) => resolve({ code, reason: reason.toString() })),
  )
  await new Promise<void>((resolve, reject) => {
    ws.once('open', () => resolve())
    ws.once('error', reject)
  })
  return {
    send: (message) => ws.send(JSON.stringify({ v: SYNC_PROTOCOL_VERSION, ...message })),
    async next(type, timeoutMs = 10_000) {
      const deadline = Date.now() + timeoutMs
      while (true) {
        const i = inbox.findIndex((m) => !type || m.type === type)
        if (i >= 0) return inbox.splice(i, 1)[0]
        if (Date.now() > deadline) throw new Error(`No ${type ?? 'message'} within ${timeoutMs} ms`)
        await new Promise<void>((resolve) => {
          waiters.push(resolve)
          setTimeout(resolve, 50)
        })
      }
    },
    closed,
    close: () => ws.close(),
    pings: () => pings,
  }
}

/**
 * A raw socket on `/sync` that said hello for `member` as a new device and read its welcome and
 * every page of its snapshot.
 */
export async function joinedSocket(
  serverUrl: string,
  member: { api: { token?: string }; householdId: string },
  options: { token?: string; clientId?: string; autoPong?: boolean } = {},
) {
  const clientId = options.clientId ?? ulid()
  const socket = await rawSocket(serverUrl, {}, { autoPong: options.autoPong })
  const token = options.token ?? member.api.token
  socket.send({ type: 'hello', token, householdId: member.householdId, clientId, cursor: null })
  const welcome = await socket.next('welcome')
  let snapshot = await socket.next('snapshot')
  while (snapshot.more) snapshot = await socket.next('snapshot')
  return { socket, welcome, snapshot, clientId }
}
