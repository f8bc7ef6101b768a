/** Writes Server-Sent Events to a response body; writes after the client left are dropped. */
export interface StreamWriter {
  event(name: string, data: unknown): Promise<void>
  /**
   * Answers once the server has taken every event written so far from the body to send it (or
   * after `withinMs`, or at once when the client left), then lets the event loop turn once so
   * the bytes reach the socket.
   */
  sent(withinMs: number): Promise<void>
  close(): void
  readonly closed: boolean
}

/**
 * A `text/event-stream` body and its writer. `onCancel` runs when the client goes away, so the
 * turn can stop and mark itself interrupted.
 */
export function eventStream(onCancel: () => void): {
  body: ReadableStream<Uint8Array>
  writer: StreamWriter
} {
  const encoder = new TextEncoder()
  let controller!: ReadableStreamDefaultController<Uint8Array>
  let closed = false
  let seq = 0
  // Called when the reader asks for more and nothing is queued: it has taken every event so far.
  let taken: (() => void) | null = null
  const body = new ReadableStream<Uint8Array>(
    {
      start(c) {
        controller = c
      },
      pull() {
        taken?.()
        taken = null
      },
      cancel() {
        closed = true
        taken?.()
        onCancel()
      },
    },
    // Nothing is pulled ahead: `pull` runs only when the server's reader waits for the next event.
    { highWaterMark: 0 },
  )
  const writer: StreamWriter = {
    async event(name, data) {
      if (closed) return
      seq += 1
      controller.enqueue(encoder.encode(`id: ${seq}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`))
    },
    async sent(withinMs) {
      if (!closed && (controller.desiredSize ?? 0) < 0) {
        let timer: NodeJS.Timeout | undefined
        await new Promise<void>((resolve) => {
          taken = resolve
          timer = setTimeout(resolve, withinMs)
        })
        clearTimeout(timer)
        taken = null
      }
      await new Promise((resolve) => setImmediate(resolve))
    },
    close() {
      if (closed) return
      closed = true
      controller.close()
    },
    get closed() {
      return closed
    },
  }
  return { body, writer }
}
