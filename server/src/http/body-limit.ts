import type { IncomingMessage } from 'node:http'
import type { Context, MiddlewareHandler } from 'hono'
import { bodyLimit } from 'hono/body-limit'

/**
 * Refuses a request body over `maxBytes` with `onError`, and keeps an answer that leaves a body
 * unread from spoiling its connection.
 *
 * A body that states its Content-Length is judged by that header without being touched: reading
 * `c.req.raw.body` first, as Hono's bodyLimit does, turns the request into a web stream that
 * holds the socket paused, and a request refused before its body is read (401, 403, 404, 415)
 * then left a connection that @hono/node-server could not drain. It closed it half a second later
 * although the answer said keep-alive, and the client's next request on it failed with "socket
 * hang up". Node drains an untouched body itself. A chunked body, which states no length, is
 * counted as it arrives by Hono's bodyLimit, which reads it whole; a request with neither header
 * has no body. A route that opens the body and answers before its end (the OpenAPI validator
 * does, to refuse a body sent without a Content-Type) answers `Connection: close`, so the client
 * opens a new connection rather than losing its next request.
 */
export function limitBody(
  maxBytes: number,
  onError: (c: Context) => Response | Promise<Response>,
): MiddlewareHandler {
  const chunked = bodyLimit({ maxSize: maxBytes, onError })
  return async function limitBody(c, next) {
    if (c.req.header('transfer-encoding') !== undefined) {
      const refused = await chunked(c, next)
      if (refused) return refused
    } else {
      const length = c.req.header('content-length')
      if (length !== undefined && Number(length) > maxBytes) return onError(c)
      await next()
    }
    const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
    if (incoming?.readableDidRead && !incoming.readableEnded) c.header('connection', 'close')
  }
}
