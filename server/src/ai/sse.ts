/** Writes Server-Sent Events to a response body; writes after the client left are dropped. */
export interface StreamWriter {
  event(name: string, data: unknown): Promise<void>
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
  const body = new ReadableStream<Uint8Array>({
    start(c) {
      controller = c
    },
    cancel() {
      closed = true
      onCancel()
    },
  })
  const writer: StreamWriter = {
    async event(name, data) {
      if (closed) return
      seq += 1
      controller.enqueue(encoder.encode(`id: ${seq}\nevent: ${name}\ndata: ${JSON.stringify(data)}\n\n`))
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
