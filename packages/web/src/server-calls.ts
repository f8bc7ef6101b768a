/**
 * Calls to the server's REST API for what only the server does (members, invitations): the
 * replica answers every other read and write. A write carries an Idempotency-Key, so a retry
 * after a dropped answer replays the first answer instead of doing it twice.
 */

/**
 * Where the server is and who calls it: the session's URL, and its key when it signed in with one
 * (a session kept in a cookie needs none: the browser sends the cookie).
 */
export interface ServerAccess {
  serverUrl: string
  token?: string
}

/** A refusal from the server, with its problem+json `code`. */
export class ServerCallError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    /** The scope an `INSUFFICIENT_SCOPE` refusal names. */
    readonly requiredScope?: string,
  ) {
    super(message)
  }
}

/** One REST call; answers the parsed body (undefined for 204). */
export async function serverCall<T>(
  access: ServerAccess,
  method: 'GET' | 'POST' | 'PUT' | 'PATCH' | 'DELETE',
  path: string,
  options: { body?: unknown; idempotencyKey?: string } = {},
): Promise<T> {
  let response: Response
  try {
    response = await fetch(new URL(path, access.serverUrl), {
      method,
      credentials: 'include',
      headers: {
        ...(access.token && { authorization: `Bearer ${access.token}` }),
        ...(options.body !== undefined && { 'content-type': 'application/json' }),
        ...(options.idempotencyKey && { 'idempotency-key': options.idempotencyKey }),
      },
      ...(options.body !== undefined && { body: JSON.stringify(options.body) }),
    })
  } catch {
    throw new ServerCallError(0, 'UNREACHABLE', 'The server cannot be reached; try again when online.')
  }
  if (response.status === 204) return undefined as T
  const body = (await response.json().catch(() => ({}))) as Record<string, unknown>
  if (!response.ok) {
    throw new ServerCallError(
      response.status,
      String(body.code ?? `HTTP_${response.status}`),
      String(body.detail ?? body.title ?? response.statusText),
      typeof body.requiredScope === 'string' ? body.requiredScope : undefined,
    )
  }
  return body as T
}
