/**
 * Idle device sockets in a process of their own, for `bench:sockets`: the reader that measures
 * REST must not share its thread (and its collector) with the 10,000 sockets it is measuring the
 * server against, or their pongs and their heap land in the figure as if they were the server's.
 *
 * Speaks one JSON line per command on stdin and answers one JSON line on stdout (as
 * `sync-device.ts` does): first `{"ready":true}`; `{"open":{"url":…,"seats":[…],"batch":n}}` opens a
 * device socket per seat, `batch` at a time, each joined (its first delta arrived), and answers
 * `{"opened":n,"retries":n,"ms":n}`; `{"close":true}` closes every socket, waits for the server's
 * answers, and answers `{"closed":n,"stillOpen":n}` (how many were open until then). Progress goes
 * to stderr.
 */
import { createInterface } from 'node:readline'
import { monotonicFactory } from 'ulidx'
import WebSocket from 'ws'

/** A device's key and household, to say hello with. */
export interface Seat {
  token: string
  householdId: string
}

const id = monotonicFactory()
const open: WebSocket[] = []
/** Hellos the server closed for its deadline (4408) and the device sent again, as the SDK does. */
let helloRetries = 0

/** A command from the bench. */
interface Command {
  open?: { url: string; seats: Seat[]; batch: number }
  close?: true
}

async function handle(command: Command): Promise<unknown> {
  if (command.open) {
    helloRetries = 0
    const start = performance.now()
    const { url, seats, batch } = command.open
    const opened = await openSockets(url, seats, batch)
    open.push(...opened)
    return { opened: opened.length, retries: helloRetries, ms: performance.now() - start }
  }
  if (command.close) {
    const stillOpen = open.filter((ws) => ws.readyState === WebSocket.OPEN).length
    const closing = open.splice(0)
    await closeSockets(closing)
    return { closed: closing.length, stillOpen }
  }
  throw new Error(`unknown command ${JSON.stringify(command)}`)
}

/** Opens a device socket per seat, `batch` at a time, each joined (its first delta arrived). */
async function openSockets(url: string, seats: Seat[], batch: number): Promise<WebSocket[]> {
  const opened: WebSocket[] = []
  let since = performance.now()
  for (let i = 0; i < seats.length; i += batch) {
    try {
      opened.push(...(await Promise.all(seats.slice(i, i + batch).map((seat) => joinRetrying(url, seat)))))
    } catch (error) {
      for (const ws of opened) ws.terminate()
      throw new Error(`after ${opened.length} sockets joined: ${(error as Error).message}`)
    }
    if (opened.length % 1000 === 0) {
      console.error(
        `[-] ${opened.length} joined, the last 1,000 in ${((performance.now() - since) / 1000).toFixed(1)} s`,
      )
      since = performance.now()
    }
  }
  return opened
}

/** `joinDevice`, again after a 4408 (at most three times): a device reconnects after one. */
async function joinRetrying(url: string, seat: Seat): Promise<WebSocket> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await joinDevice(url, seat)
    } catch (error) {
      if (attempt >= 3 || !(error as Error).message.includes('4408')) throw error
      helloRetries++
    }
  }
}

/** A device socket that said hello with a cursor (a replica synced before) and got its catch-up. */
function joinDevice(url: string, seat: Seat): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace(/^http/, 'ws')}/sync`)
    ws.once('open', () =>
      ws.send(
        JSON.stringify({
          v: 1,
          type: 'hello',
          token: seat.token,
          householdId: seat.householdId,
          clientId: id(),
          deviceName: 'Bench device',
          cursor: 0,
        }),
      ),
    )
    const onMessage = (data: WebSocket.RawData) => {
      const message = JSON.parse(data.toString()) as { type: string; code?: string }
      if (message.type === 'error') reject(new Error(`hello refused: ${message.code}`))
      if (message.type === 'delta') {
        // Idle from here: the socket keeps no handler of its own for further messages.
        ws.off('message', onMessage)
        ws.on('message', () => {})
        resolve(ws)
      }
    }
    ws.on('message', onMessage)
    ws.once('error', reject)
    ws.once('close', (code) => reject(new Error(`socket closed before joining (${code})`)))
  })
}

/** Closes sockets and waits until the server has answered every close. */
async function closeSockets(sockets: WebSocket[]): Promise<void> {
  await Promise.all(
    sockets.map(
      (ws) =>
        new Promise<void>((resolve) => {
          if (ws.readyState === WebSocket.CLOSED) return resolve()
          ws.removeAllListeners('close')
          ws.once('close', () => resolve())
          ws.on('error', () => {})
          ws.close()
        }),
    ),
  )
}

// Commands run one at a time, in order.
let queue: Promise<void> = Promise.resolve()
createInterface({ input: process.stdin }).on('line', (line) => {
  queue = queue.then(async () => {
    try {
      process.stdout.write(`${JSON.stringify(await handle(JSON.parse(line)))}\n`)
    } catch (error) {
      process.stdout.write(`${JSON.stringify({ error: (error as Error).message })}\n`)
    }
  })
})
process.stdin.on('end', () => {
  for (const ws of open) ws.terminate()
  void queue.then(() => process.exit(0))
})
process.stdout.write(`${JSON.stringify({ ready: true })}\n`)
