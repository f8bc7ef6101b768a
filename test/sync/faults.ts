import 'fake-indexeddb/auto'
import {
  browserPlatform,
  createHearthWith,
  type Hearth,
  type HearthOptions,
  type HearthPlatform,
  nodePlatform,
  type SocketLike,
} from '@hearth/client'
import type { RunningServer } from '@hearth/server'
import { ulid } from 'ulidx'
import WebSocket from 'ws'
import type { TestMember } from '../src/index.ts'
import { newDeviceFolder } from './devices.ts'

/**
 * Faults a test injects into one device through the SDK's public platform options: its sockets
 * can hold the frames they receive and drop at a chosen moment, and its durable queue's writes
 * can be slowed. Everything else (the server, the sockets, the stores) is real.
 */
export class Faults {
  /** Milliseconds every durable queue write waits before it starts. */
  queueDelayMs = 0
  /** Every frame the device received, by type, in order (its own copy; for assertions). */
  readonly received: string[] = []
  /** Errors the SDK announced. */
  readonly errors: { code: string; fatal: boolean }[] = []
  private current: FaultySocket | null = null
  private dropWhen: ((type: string, index: number) => boolean) | null = null

  /** The socket of the device's connection now, if one is open. */
  get socket(): FaultySocket | null {
    return this.current && !this.current.dropped ? this.current : null
  }

  /** Holds frames the server sends until `release` (or a drop discards them). */
  hold(): void {
    this.current?.hold()
  }

  /** Hands every held frame to the SDK at once, in order, and stops holding. */
  release(): void {
    this.current?.release()
  }

  /** The connection drops now: the SDK hears the close at once; held frames are lost. */
  drop(): void {
    this.current?.drop()
  }

  /**
   * Drops the connection right after the SDK is handed a frame `when` picks (its type and its
   * index among this connection's frames); once.
   */
  dropAfter(when: (type: string, index: number) => boolean): void {
    this.dropWhen = when
  }

  /** @internal */
  opened(socket: FaultySocket): void {
    this.current = socket
  }

  /** @internal */
  delivered(socket: FaultySocket, type: string, index: number): void {
    this.received.push(type)
    if (this.dropWhen?.(type, index)) {
      this.dropWhen = null
      socket.drop()
    }
  }

  /** A platform like `base`, with this fault plan's sockets and queue. */
  platform(base: HearthPlatform): HearthPlatform {
    return {
      ...base,
      socket: (url) => new FaultySocket(url, this),
      openQueue: async (location, store) => {
        const queue = await base.openQueue(location, store)
        const append = queue.append.bind(queue)
        queue.append = async (record) => {
          if (this.queueDelayMs > 0) await new Promise((resolve) => setTimeout(resolve, this.queueDelayMs))
          return append(record)
        }
        return queue
      },
    }
  }
}

/**
 * A `ws` socket as the SDK sees it, between which and the SDK frames can be held, and whose
 * drop the SDK hears at once (as a reset connection), while the frames held are lost.
 */
export class FaultySocket implements SocketLike {
  onopen: ((event: unknown) => void) | null = null
  onmessage: ((event: { data: unknown }) => void) | null = null
  onclose: ((event: { code: number; reason: string }) => void) | null = null
  onerror: ((event: unknown) => void) | null = null
  dropped = false
  private readonly ws: WebSocket
  private held: string[] | null = null
  private frames = 0

  constructor(
    url: string,
    private readonly faults: Faults,
  ) {
    this.ws = new WebSocket(url)
    faults.opened(this)
    this.ws.on('open', () => {
      if (!this.dropped) this.onopen?.({})
    })
    this.ws.on('message', (data) => {
      if (this.dropped) return
      const text = data.toString()
      if (this.held) this.held.push(text)
      else this.deliver(text)
    })
    this.ws.on('error', () => {})
    this.ws.on('close', (code, reason) => {
      if (this.dropped) return
      this.dropped = true
      this.onclose?.({ code, reason: reason.toString() })
    })
  }

  get readyState(): number {
    return this.dropped ? 3 : this.ws.readyState
  }

  send(data: string): void {
    if (!this.dropped && this.ws.readyState === 1) this.ws.send(data)
  }

  close(code?: number, reason?: string): void {
    if (this.dropped) return
    this.ws.close(code, reason)
  }

  hold(): void {
    this.held ??= []
  }

  /** The types of the frames held now, in order. */
  get heldTypes(): string[] {
    return (this.held ?? []).map((text) => (JSON.parse(text) as { type: string }).type)
  }

  release(): void {
    const held = this.held ?? []
    this.held = null
    for (const text of held) {
      if (this.dropped) return
      this.deliver(text)
    }
  }

  drop(): void {
    if (this.dropped) return
    this.dropped = true
    this.held = null
    this.ws.terminate()
    this.onclose?.({ code: 1006, reason: '' })
  }

  private deliver(text: string): void {
    this.onmessage?.({ data: text })
    let type = 'unknown'
    try {
      type = (JSON.parse(text) as { type?: string }).type ?? type
    } catch {}
    this.faults.delivered(this, type, this.frames++)
  }
}

/** Which entry of the SDK a device uses: Node's (a folder) or the browser's (IndexedDB). */
export type SdkEntry = 'node' | 'browser'

/** The browser entry under fake-indexeddb; its sockets come from `ws`, as Node 20 has none. */
const browserInNode: HearthPlatform = {
  ...browserPlatform,
  socket: (url: string) => new WebSocket(url) as unknown as SocketLike,
}

const opened: Hearth[] = []

/** A device of `member` on `entry` with `faults` injected; closed by `closeFaultyDevices`. */
export async function faultyDevice(
  server: RunningServer,
  member: TestMember,
  faults: Faults,
  entry: SdkEntry = 'node',
  options: Partial<HearthOptions> = {},
): Promise<Hearth> {
  const device = await createHearthWith(faults.platform(entry === 'node' ? nodePlatform : browserInNode), {
    serverUrl: server.url,
    token: member.api.token,
    household: member.householdId,
    deviceName: `faulty ${entry} device`,
    reconnectMinMs: 20,
    reconnectMaxMs: 200,
    store: entry === 'node' ? await newDeviceFolder() : `idb://faulty-${ulid()}`,
    ...options,
  })
  device.on('error', (e) => faults.errors.push({ code: e.code, fatal: e.fatal }))
  opened.push(device)
  return device
}

/** Closes every device `faultyDevice` opened. */
export async function closeFaultyDevices(): Promise<void> {
  for (const device of opened.splice(0)) await device.close()
}
